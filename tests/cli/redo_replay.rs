//! `cdcctl redo replay` end to end: CSV exports of V$LOGMNR_CONTENTS in
//! tests/fixtures/replay/ through the real binary.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

const T1: &str = "0A0014005D3C0000";
const T2: &str = "0B0001000A000000";
const T4: &str = "0D0003000C000000";
const T5: &str = "0E0004000D000000";
const T6: &str = "0F0005000E000000";

fn fixture(name: &str) -> String {
    let p: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "tests",
        "fixtures",
        "replay",
        name,
    ]
    .iter()
    .collect();
    p.to_string_lossy().into_owned()
}

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Out {
    fn events(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|l| serde_json::from_str(l).expect("each stdout line is one JSON envelope"))
            .collect()
    }

    /// (txId, op or "ddl", key column) per event, the txId (lower-case
    /// hex, as Debezium writes it) in upper case as the rows' XID column.
    fn summary(&self) -> Vec<(String, String, String)> {
        self.events()
            .iter()
            .map(|e| {
                let src = &e["source"];
                let xid = src["txId"].as_str().unwrap_or("").to_ascii_uppercase();
                match e.get("op").and_then(Value::as_str) {
                    Some(op) => {
                        let img = if e["after"].is_null() {
                            &e["before"]
                        } else {
                            &e["after"]
                        };
                        let id = img["ORDER_ID"].as_str().unwrap_or("").to_string();
                        (xid, op.to_string(), id)
                    }
                    None => (xid, "ddl".into(), e["ddl"].as_str().unwrap_or("").into()),
                }
            })
            .collect()
    }
}

fn replay(args: &[&str]) -> Out {
    let out = Command::new(env!("CARGO_BIN_EXE_cdcctl"))
        .args(["redo", "replay"])
        .args(args)
        .output()
        .expect("the cdcctl binary runs");
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn ev(xid: &str, op: &str, id: &str) -> (String, String, String) {
    (xid.into(), op.into(), id.into())
}

#[test]
fn replay_emits_committed_changes_in_commit_order_across_interleaved_transactions() {
    let out = replay(&["--csv", &fixture("orders.csv")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.summary(),
        vec![
            ev(T2, "c", "2001"),
            ev(T1, "c", "1001"),
            ev(T1, "c", "1002"),
            ev(T1, "d", "1002"),
            ev(T1, "c", "1003"),
            ev(T4, "c", "4001"),
            ev(T4, "c", "4002"),
            ev(T5, "c", "5001"),
            ev(T5, "d", "5001"),
            ev(
                T6,
                "ddl",
                "ALTER TABLE \"APP\".\"ORDER_HIS\" TRUNCATE PARTITION \"P_202501\";"
            ),
        ]
    );
    let events = out.events();
    let commit_scns: Vec<&str> = events
        .iter()
        .map(|e| e["source"]["commit_scn"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        commit_scns,
        ["1007", "1013", "1013", "1013", "1013", "1019", "1019", "1021", "1021", "1024"]
    );
    // The CSF-split INSERT came back whole; the envelope carries the position.
    assert_eq!(events[4]["after"]["NOTE"].as_str().map(str::len), Some(300));
    assert_eq!(events[1]["source"]["db"], "ORCLPDB1");
    assert_eq!(events[1]["source"]["scn"], "1001");
    assert_eq!(events[1]["source"]["row_id"], "AAAR3sAAEAAAACXAAA");
    assert_eq!(events[3]["transaction"]["total_order"], 3);
    assert!(
        out.stderr.contains("commit SCN reached: 1024"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("restart SCN: 1024"), "{}", out.stderr);
}

#[test]
fn replay_reads_standard_input_and_can_leave_ddl_out() {
    let csv = std::fs::read(fixture("orders.csv")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cdcctl"))
        .args(["redo", "replay", "--csv", "-", "--skip-ddl"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the cdcctl binary runs");
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        stdin.write_all(&csv).unwrap();
    }
    let got = child.wait_with_output().unwrap();
    assert_eq!(got.status.code(), Some(0));
    let from_file = replay(&["--csv", &fixture("orders.csv")]);
    let without_ddl: Vec<&str> = from_file
        .stdout
        .lines()
        .filter(|l| !l.contains("\"ddl\""))
        .collect();
    let stdout = String::from_utf8_lossy(&got.stdout);
    assert_eq!(stdout.lines().collect::<Vec<_>>(), without_ddl);
    assert_eq!(without_ddl.len(), 9);
}

#[test]
fn rollback_to_savepoint_drops_only_later_rows() {
    // T1 updates order 1001 and undoes it (ROLLBACK=1 on the same ROW_ID);
    // T3 is rolled back whole (code 36).
    let out = replay(&["--csv", &fixture("orders.csv")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let s = out.summary();
    assert!(
        s.contains(&ev(T1, "c", "1001")),
        "the INSERT before the savepoint stays"
    );
    assert!(
        !s.iter().any(|(_, op, _)| op == "u"),
        "the undone UPDATE is gone"
    );
    assert!(
        !s.iter().any(|(_, _, id)| id == "3001"),
        "the rolled-back T3 is gone"
    );
    assert!(
        out.stderr.contains("1 rolled back, 1 partial rollbacks"),
        "{}",
        out.stderr
    );
}

#[test]
fn summary_names_open_transactions_and_the_restart_scn_before_them() {
    let out = replay(&["--csv", &fixture("orders_part1.csv")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("commit SCN reached: 1013"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("restart SCN: 1013"), "{}", out.stderr);
    assert!(
        out.stderr.contains("open transactions: 1"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(&format!(
            "{T4} start SCN 1014, 1 change, 524 bytes, open 1s"
        )),
        "{}",
        out.stderr
    );
}

#[test]
fn spilling_every_transaction_to_disk_changes_nothing_in_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let dir_s = dir.path().to_string_lossy().into_owned();
    let in_memory = replay(&["--csv", &fixture("orders.csv")]);
    let spilled = replay(&[
        "--csv",
        &fixture("orders.csv"),
        "--spill-txn-mib",
        "0",
        "--spill-dir",
        &dir_s,
    ]);
    assert_eq!(spilled.code, 0, "{}", spilled.stderr);
    assert!(
        spilled.stderr.contains("spilled to disk: "),
        "{}",
        spilled.stderr
    );
    assert_eq!(spilled.stdout, in_memory.stdout);
}

#[test]
fn replay_from_a_checkpoint_emits_nothing_twice() {
    let dir = tempfile::tempdir().unwrap();
    let cp = dir.path().join("cp.json").to_string_lossy().into_owned();
    let full = replay(&["--csv", &fixture("orders.csv")]);

    // First run: the export up to SCN 1015, T4 still open.
    let first = replay(&[
        "--csv",
        &fixture("orders_part1.csv"),
        "--write-checkpoint",
        &cp,
    ]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(&cp).unwrap()).unwrap();
    assert_eq!(stored["version"], 1);
    assert_eq!(stored["restart_scn"], 1013);
    assert_eq!(stored["commit_scn"], 1013);
    assert_eq!(stored["committed_xids_at_commit_scn"][0], T1);

    // Restart over the whole export: only what the first run did not emit.
    let second = replay(&[
        "--csv",
        &fixture("orders.csv"),
        "--from-checkpoint",
        &cp,
        "--write-checkpoint",
        &cp,
    ]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert_eq!(format!("{}{}", first.stdout, second.stdout), full.stdout);

    // And once more: everything was emitted already.
    let third = replay(&["--csv", &fixture("orders.csv"), "--from-checkpoint", &cp]);
    assert_eq!(third.code, 0, "{}", third.stderr);
    assert_eq!(third.stdout, "");
}

#[test]
fn checkpoint_file_refuses_to_move_backwards() {
    let dir = tempfile::tempdir().unwrap();
    let cp = dir.path().join("cp.json").to_string_lossy().into_owned();
    let ahead = replay(&["--csv", &fixture("orders.csv"), "--write-checkpoint", &cp]);
    assert_eq!(ahead.code, 0, "{}", ahead.stderr);
    let behind = replay(&[
        "--csv",
        &fixture("orders_part1.csv"),
        "--write-checkpoint",
        &cp,
    ]);
    assert_eq!(behind.code, 2);
    assert!(behind.stderr.contains("backwards"), "{}", behind.stderr);
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(&cp).unwrap()).unwrap();
    assert_eq!(stored["commit_scn"], 1024);
}

#[test]
fn parse_failure_stops_with_exit_4_naming_scn_xid_and_raw_text() {
    let out = replay(&["--csv", &fixture("bad_sql.csv")]);
    assert_eq!(out.code, 4);
    assert!(out.stderr.contains("SCN 1002"), "{}", out.stderr);
    assert!(out.stderr.contains(T1), "{}", out.stderr);
    assert!(out.stderr.contains("valuez ('1')"), "{}", out.stderr);
    // Nothing after the failure is emitted; T2 (committed later) is not.
    assert!(!out.stdout.contains(T2));
}

#[test]
fn warn_mode_lists_the_dead_letter_and_goes_on() {
    let out = replay(&["--csv", &fixture("bad_sql.csv"), "--on-parse-error", "warn"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.summary(),
        vec![
            ev(T1, "c", "1001"),
            ev(T1, "c", "1003"),
            ev(T2, "c", "2001")
        ]
    );
    assert!(
        out.stderr
            .contains("dead letters (not parsed, not emitted): 1"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("valuez"), "{}", out.stderr);
}

#[test]
fn dead_letter_file_holds_the_rejected_statement_with_its_position() {
    let dir = tempfile::tempdir().unwrap();
    let dl = dir.path().join("dead.jsonl");
    let dl_s = dl.to_string_lossy().into_owned();
    let out = replay(&[
        "--csv",
        &fixture("bad_sql.csv"),
        "--on-parse-error",
        "warn",
        "--dead-letter",
        &dl_s,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = std::fs::read_to_string(&dl).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["scn"], 1002);
    assert_eq!(lines[0]["commit_scn"], 1004);
    assert_eq!(lines[0]["xid"], T1);
    assert!(lines[0]["raw"].as_str().unwrap_or("").contains("valuez"));
}

#[test]
fn unusable_spill_directory_exits_2_naming_the_spill() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("absent").to_string_lossy().into_owned();
    let out = replay(&[
        "--csv",
        &fixture("orders.csv"),
        "--spill-txn-mib",
        "0",
        "--spill-dir",
        &missing,
    ]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("spill"), "{}", out.stderr);
}

#[test]
fn missing_scn_and_truncated_continuation_stop_with_exit_4() {
    let out = replay(&["--csv", &fixture("missing_scn.csv")]);
    assert_eq!(out.code, 4);
    assert!(
        out.stderr.contains("MISSING_SCN at SCN 1002"),
        "{}",
        out.stderr
    );
    let out = replay(&["--csv", &fixture("truncated_csf.csv")]);
    assert_eq!(out.code, 4);
    assert!(out.stderr.contains("truncated"), "{}", out.stderr);
}

#[test]
fn unreadable_file_or_bad_header_exits_2_with_one_line() {
    let out = replay(&["--csv", &fixture("no_such_file.csv")]);
    assert_eq!(out.code, 2);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    let out = replay(&["--csv", &fixture("bad_header.csv")]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("OPERATION_CODE"), "{}", out.stderr);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
}

#[test]
fn retention_abandons_a_long_transaction_and_reports_its_late_commit() {
    // T1 runs from 09:00:00 to its COMMIT at 09:00:13 of redo time.
    let out = replay(&["--csv", &fixture("orders.csv"), "--abandon-after", "5"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let s = out.summary();
    assert!(!s.iter().any(|(x, _, _)| x == T1), "{s:?}");
    assert!(s.contains(&ev(T2, "c", "2001")));
    assert!(
        out.stderr.contains(&format!("abandoned transaction {T1}")),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(&format!(
            "COMMIT of abandoned transaction {T1} at SCN 1013 ignored"
        )),
        "{}",
        out.stderr
    );
}

#[test]
fn findings_are_grouped_with_their_first_position_and_lob_rows_counted() {
    let out = replay(&["--csv", &fixture("findings.csv")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Two partial updates and the EMPTY_CLOB insert are emitted; the STATUS=2
    // row and the UNSUPPORTED operation are findings, not data.
    assert_eq!(out.events().len(), 3);
    assert_eq!(
        out.events()[2]["after"]["BODY"],
        "__debezium_unavailable_value"
    );
    let e = &out.stderr;
    // The EMPTY_CLOB() column, given as the marker, is reported once.
    assert!(e.contains("findings: 5"), "{e}");
    assert!(
        e.contains("APP.DOCS.BODY: LOB or XML value not in the DML redo"),
        "{e}"
    );
    assert!(
        e.contains("lacks supplemental logging")
            && e.contains("(2 times, first at SCN 1001, XID 0A0014005D3C0000)"),
        "{e}"
    );
    assert!(
        e.contains("Object contains a column of unsupported type (at SCN 1003"),
        "{e}"
    );
    assert!(
        e.contains("operation UNSUPPORTED (code 255) on APP.GEO"),
        "{e}"
    );
    assert!(e.contains("LOB, XML and 32k-string rows: 2"), "{e}");
}

/// Drops the columns a capture cannot see in SQL_REDO: LOB columns are not
/// in an UPDATE's WHERE or SET, and the simulator's truth lists them as
/// unavailable.
fn without_unavailable(line: &str) -> Value {
    let mut v: Value = serde_json::from_str(line).expect("one JSON envelope per line");
    for side in ["before", "after"] {
        if let Some(img) = v.get_mut(side).and_then(Value::as_object_mut) {
            // The placeholder, as text or (a BLOB's) as base64 bytes.
            img.retain(|_, val| {
                val != "__debezium_unavailable_value"
                    && val != "X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ=="
            });
        }
    }
    v
}

#[test]
fn replay_of_simulator_contents_reproduces_its_ground_truth() {
    // `sim contents --scenario demo --from-scn 13000000 --until-scn 13001000`
    // and `sim truth --scenario demo --until-scn 13001000`: interleaved
    // transactions, rollbacks, savepoints, CSF pieces and LOB rows.
    let out = replay(&["--csv", &fixture("sim_demo_contents.csv"), "--skip-ddl"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let truth = std::fs::read_to_string(fixture("sim_demo_truth.jsonl")).unwrap();
    let want: Vec<Value> = truth.lines().map(without_unavailable).collect();
    let got: Vec<Value> = out.stdout.lines().map(without_unavailable).collect();
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "event {i}");
    }
    assert!(
        out.stderr.contains("3 rolled back, 16 partial rollbacks"),
        "{}",
        out.stderr
    );
}

#[test]
fn checkpoint_written_at_a_parse_failure_resumes_after_the_last_emitted_event() {
    let dir = tempfile::tempdir().unwrap();
    let cp = dir.path().join("cp.json").to_string_lossy().into_owned();
    let failed = replay(&["--csv", &fixture("bad_sql.csv"), "--write-checkpoint", &cp]);
    assert_eq!(failed.code, 4);
    assert_eq!(failed.summary(), vec![ev(T1, "c", "1001")]);
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(&cp).unwrap()).unwrap();
    assert_eq!(
        stored["restart_scn"], 999,
        "T1 is not done: re-mine from its start"
    );
    assert_eq!(stored["last_event_index"], serde_json::json!([T1, 0]));

    // The operator chooses to go on past the bad statement.
    let resumed = replay(&[
        "--csv",
        &fixture("bad_sql.csv"),
        "--from-checkpoint",
        &cp,
        "--on-parse-error",
        "warn",
    ]);
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    assert_eq!(
        resumed.summary(),
        vec![ev(T1, "c", "1003"), ev(T2, "c", "2001")]
    );
}

#[test]
fn issue10_endless_input_without_newlines_is_refused_not_read_into_memory() {
    // /dev/zero never ends and holds no newline: a bounded reader stops it.
    for args in [
        &["redo", "parse", "--file", "/dev/zero"][..],
        &["redo", "parse", "--csv", "--file", "/dev/zero"],
        &["redo", "replay", "--csv", "/dev/zero"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_cdcctl"))
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run cdcctl");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("runs past 16 MiB without a newline"),
            "{stderr}"
        );
    }
}

#[test]
fn issue10_oversized_or_deeply_nested_input_files_are_refused_with_a_clear_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let nested = dir.path().join("nested.toml");
    std::fs::write(&nested, format!("x = {}", "[".repeat(100_000))).expect("write");
    let big = dir.path().join("big.toml");
    std::fs::write(&big, vec![b'#'; 5 << 20]).expect("write");
    let yaml = dir.path().join("nested.yaml");
    std::fs::write(&yaml, "[".repeat(100_000)).expect("write");
    let json = dir.path().join("evidence.json");
    std::fs::write(&json, "[".repeat(100_000)).expect("write");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "--source".into(),
                format!("sim:{}", nested.display()),
                "preflight".into(),
            ],
            "nested deeper than 128",
        ),
        (
            vec![
                "--source".into(),
                format!("sim:{}", big.display()),
                "preflight".into(),
            ],
            "larger than 4 MiB",
        ),
        (
            vec![
                "--source".into(),
                "sim".into(),
                "preflight".into(),
                "--config".into(),
                yaml.display().to_string(),
            ],
            "nested deeper than 128",
        ),
        (
            vec![
                "--source".into(),
                "sim".into(),
                "preflight".into(),
                "--evidence".into(),
                json.display().to_string(),
            ],
            "nested deeper than 128",
        ),
    ];
    for (args, needle) in cases {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_cdcctl"))
            .args(&args)
            .current_dir(dir.path())
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run cdcctl");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}
