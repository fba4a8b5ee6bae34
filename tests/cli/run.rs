//! `cdcctl run` driven as an operator runs it: capture to a file with a
//! checkpoint, stop, resume, and compare with the simulator's ground truth.

use std::process::{Command, Output, Stdio};

use crate::common::{demo_window, without_unavailable};

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
