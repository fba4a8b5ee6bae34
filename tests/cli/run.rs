//! `cdcctl run` driven as an operator runs it: capture to a file with a
//! checkpoint, stop, resume, and compare with the simulator's ground truth.

use std::process::{Command, Output, Stdio};

use crate::common::without_unavailable;

const BIN: &str = env!("CARGO_BIN_EXE_cdcctl");

fn cdcctl(dir: &std::path::Path, args: &[&str]) -> Output {
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

fn lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn stopping_and_resuming_from_the_checkpoint_writes_each_change_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let args = [
        "--source",
        "sim:demo?clock=virtual",
        "run",
        "APP.ORDERS",
        "--output",
        "out.jsonl",
        "--checkpoint",
        "cp.json",
        "--count",
        "40",
    ];
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
