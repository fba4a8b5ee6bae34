//! A real consumer: Flink's `debezium-json` format reads `run`'s output of
//! every built-in scenario that captures into typed tables, and its
//! changelog and final state equal the simulator's ground truth. Runs when
//! `CDCCTL_TEST_FLINK=1` (it installs PyFlink into `target/flink-venv` on
//! first use and needs Java 11+); skipped with a visible line otherwise.

use std::path::{Path, PathBuf};
use std::process::Command;

use cdcctl::source::sim::value::ColType;
use cdcctl::source::sim::{Scenario, BUILTINS};

/// The PyFlink release the check is written against.
const PYFLINK: &str = "apache-flink==2.3.0";

/// Scenarios whose capture runs to the end (the others stop on purpose).
const CAPTURING: &[&str] = &[
    "demo",
    "noarchivelog",
    "undo-too-small",
    "fra-nearly-full",
    "interval-partition-churn",
    "long-transaction",
    "big-transaction",
    "oracle11g",
    "rac",
    "lobs",
];

/// The Flink SQL type that reads a column's JSON form (README's table).
fn flink_type(t: &ColType) -> String {
    match t {
        ColType::Number {
            precision: Some(p),
            scale,
        } => format!("DECIMAL({p}, {})", scale.unwrap_or(0).max(0)),
        ColType::Number {
            precision: None, ..
        } => "DECIMAL(38, 10)".into(),
        ColType::Date => "TIMESTAMP(0)".into(),
        ColType::Timestamp(n) => format!("TIMESTAMP({n})"),
        ColType::TimestampTz(n) => format!("TIMESTAMP_LTZ({n})"),
        ColType::Raw(_) | ColType::Blob => "BYTES".into(),
        ColType::Varchar2(_)
        | ColType::NVarchar2(_)
        | ColType::Char(_)
        | ColType::Clob
        | ColType::XmlType
        | ColType::IntervalYm
        | ColType::IntervalDs => "STRING".into(),
    }
}

fn schema_json(scenario: &Scenario) -> serde_json::Value {
    let mut tables = serde_json::Map::new();
    for t in &scenario.tables {
        let columns: Vec<serde_json::Value> = t
            .columns
            .iter()
            .map(|c| {
                let ty = ColType::parse(c.ty.get_ref()).expect("a built-in scenario's column type");
                serde_json::json!([c.name, flink_type(&ty)])
            })
            .collect();
        tables.insert(
            format!("{}.{}", t.owner, t.name),
            serde_json::json!({"columns": columns, "key": t.primary_key}),
        );
    }
    serde_json::json!({ "tables": tables })
}

/// A Python with PyFlink, installed on first use.
fn pyflink() -> PathBuf {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/flink-venv");
    let python = venv.join("bin/python");
    let ready = Command::new(&python)
        .args(["-c", "import pyflink"])
        .status()
        .is_ok_and(|s| s.success());
    if !ready {
        let made = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .expect("python3 runs");
        assert!(made.success(), "python3 -m venv failed");
        let pip = Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet", PYFLINK])
            .status()
            .expect("pip runs");
        assert!(pip.success(), "pip install {PYFLINK} failed");
    }
    python
}

fn cdcctl(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cdcctl"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("cdcctl runs")
}

#[test]
fn issue16_flink_reads_every_scenario_typed_and_ends_in_the_truth() {
    if std::env::var_os("CDCCTL_TEST_FLINK").is_none() {
        eprintln!(
            "skipped: the Flink consumer test runs with CDCCTL_TEST_FLINK=1 \
             (installs {PYFLINK} into target/flink-venv; needs Java 11+)"
        );
        return;
    }
    let python = pyflink();
    let check = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/flink/check_changelog.py");
    for name in CAPTURING {
        let builtin = BUILTINS
            .iter()
            .find(|b| b.name == *name)
            .unwrap_or_else(|| panic!("no built-in {name}"));
        let scenario = Scenario::parse(builtin.text, name).expect("built-in scenario parses");
        let from = scenario.instance.start_scn.to_string();
        let until = (scenario.instance.start_scn + 6_000).to_string();
        let dir = tempfile::tempdir().expect("tempdir");
        let source = format!("sim:{name}?clock=virtual");
        let run = cdcctl(
            dir.path(),
            &[
                "--source",
                &source,
                "run",
                "--output",
                "out.jsonl",
                "--checkpoint",
                "cp.json",
                "--from-scn",
                &from,
                "--until-scn",
                &until,
                "--status-every",
                "1h",
            ],
        );
        assert_eq!(
            run.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let truth = cdcctl(
            dir.path(),
            &["sim", "truth", "--scenario", name, "--until-scn", &until],
        );
        assert!(truth.status.success(), "{name}: sim truth failed");
        std::fs::write(dir.path().join("truth.jsonl"), &truth.stdout).expect("truth written");
        std::fs::write(
            dir.path().join("schema.json"),
            schema_json(&scenario).to_string(),
        )
        .expect("schema written");
        let out = Command::new(&python)
            .current_dir(dir.path())
            .arg(&check)
            .args(["out.jsonl", "truth.jsonl", "schema.json"])
            .output()
            .expect("the Flink check runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}:\n{stdout}\n{stderr}");
        eprintln!("{name}:\n{stdout}");
    }
}

#[test]
fn issue16_flink_reads_snapshot_rows_and_ends_in_the_table_contents() {
    if std::env::var_os("CDCCTL_TEST_FLINK").is_none() {
        eprintln!("skipped: the Flink snapshot test runs with CDCCTL_TEST_FLINK=1");
        return;
    }
    let python = pyflink();
    let check = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/flink/check_changelog.py");
    let name = "snapshot-under-fire";
    let builtin = BUILTINS
        .iter()
        .find(|b| b.name == name)
        .expect("the snapshot scenario is built in");
    let scenario = Scenario::parse(builtin.text, name).expect("built-in scenario parses");
    let until = "13100000";
    let dir = tempfile::tempdir().expect("tempdir");
    let source = format!("sim:{name}?clock=virtual");
    let run = cdcctl(
        dir.path(),
        &[
            "--source",
            &source,
            "run",
            "--output",
            "out.jsonl",
            "--checkpoint",
            "cp.json",
            "--snapshot",
            "initial",
            "--until-scn",
            until,
            "--status-every",
            "1h",
        ],
    );
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let output = std::fs::read_to_string(dir.path().join("out.jsonl")).expect("output");
    assert!(output.contains(r#""op":"r""#), "the run took no snapshot");
    let state = cdcctl(
        dir.path(),
        &[
            "sim",
            "truth",
            "--scenario",
            name,
            "--table-state",
            "--at-scn",
            until,
        ],
    );
    assert!(state.status.success(), "sim truth --table-state failed");
    std::fs::write(dir.path().join("state.jsonl"), &state.stdout).expect("state written");
    std::fs::write(
        dir.path().join("schema.json"),
        schema_json(&scenario).to_string(),
    )
    .expect("schema written");
    let out = Command::new(&python)
        .current_dir(dir.path())
        .arg(&check)
        .args(["out.jsonl", "--state", "state.jsonl", "schema.json"])
        .output()
        .expect("the Flink check runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{name}:\n{stdout}");
}
