//! A real consumer: Flink's `debezium-json` format reads `run`'s output of
//! every built-in scenario that captures into typed tables, and its
//! changelog and final state equal the simulator's ground truth. Built with
//! `CDCCTL_TEST_FLINK=1` (build.rs: the `cdcctl_flink` cfg) the tests run,
//! installing PyFlink into `target/flink-venv` on first use (Java 11+);
//! otherwise `cargo test` lists them as ignored, with that reason.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::run::cdcctl;
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
        | ColType::IntervalDs
        | ColType::Json
        | ColType::Time => "STRING".into(),
        ColType::Int => "INT".into(),
        ColType::BigInt => "BIGINT".into(),
        ColType::Double => "DOUBLE".into(),
        ColType::DateOnly => "TIMESTAMP(0)".into(),
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

/// `sim truth` of a built-in up to an SCN, as `truth.jsonl` in `dir`.
fn write_truth(dir: &Path, name: &str, until: &str) {
    let truth = cdcctl(
        dir,
        &["sim", "truth", "--scenario", name, "--until-scn", until],
    );
    assert!(truth.status.success(), "{name}: sim truth failed");
    std::fs::write(dir.join("truth.jsonl"), &truth.stdout).expect("truth written");
}

/// `run` of a built-in over its first 6,000 SCNs with these sink options;
/// the scenario and the window's last SCN.
fn run_window(dir: &Path, name: &str, sink: &[&str]) -> (Scenario, String) {
    let scenario = builtin(name);
    let from = scenario.instance.start_scn.to_string();
    let until = (scenario.instance.start_scn + 6_000).to_string();
    let source = format!("sim:{name}?clock=virtual");
    let mut args = vec!["--source", &source, "run"];
    args.extend_from_slice(sink);
    args.extend([
        "--from-scn",
        &from,
        "--until-scn",
        &until,
        "--status-every",
        "1h",
    ]);
    let run = cdcctl(dir, &args);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{name}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    (scenario, until)
}

fn builtin(name: &str) -> Scenario {
    let builtin = BUILTINS
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("no built-in {name}"));
    Scenario::parse(builtin.text, name).expect("built-in scenario parses")
}

/// Writes the scenario's Flink schema next to `run`'s output and has Flink
/// read it (`truth` names the truth file, or `--state` and the table-state
/// file); the check's report, or a failure with it.
fn flink_check(python: &Path, dir: &Path, scenario: &Scenario, truth: &[&str]) -> String {
    let check = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/flink/check_changelog.py");
    std::fs::write(dir.join("schema.json"), schema_json(scenario).to_string())
        .expect("schema written");
    let out = Command::new(python)
        .current_dir(dir)
        .arg(&check)
        .arg("out.jsonl")
        .args(truth)
        .args(["schema.json", "ddl.jsonl"])
        .output()
        .expect("the Flink check runs");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{}:\n{stdout}\n{}",
        scenario.name,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
#[cfg_attr(
    not(cdcctl_flink),
    ignore = "needs PyFlink and Java 11+: CDCCTL_TEST_FLINK=1 cargo test"
)]
fn issue16_flink_reads_every_scenario_typed_and_ends_in_the_truth() {
    let python = pyflink();
    for name in CAPTURING {
        let dir = tempfile::tempdir().expect("tempdir");
        let (scenario, until) = run_window(
            dir.path(),
            name,
            &[
                "--output",
                "out.jsonl",
                "--checkpoint",
                "cp.json",
                "--schema-changes",
                "ddl.jsonl",
            ],
        );
        write_truth(dir.path(), name, &until);
        let report = flink_check(&python, dir.path(), &scenario, &["truth.jsonl"]);
        eprintln!("{name}:\n{report}");
    }
}

#[test]
#[cfg_attr(
    not(cdcctl_flink),
    ignore = "needs PyFlink and Java 11+: CDCCTL_TEST_FLINK=1 cargo test"
)]
fn issue16_flink_reads_snapshot_rows_and_ends_in_the_table_contents() {
    let python = pyflink();
    let name = "snapshot-under-fire";
    let scenario = builtin(name);
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
            "--schema-changes",
            "ddl.jsonl",
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
    let report = flink_check(&python, dir.path(), &scenario, &["--state", "state.jsonl"]);
    eprintln!("{name}:\n{report}");
}

/// The Kafka sink's messages through the same typed Flink decoding: Flink's
/// Kafka connector is published on Maven Central only, so the messages are
/// read back here (`read_committed`, de-duplicated by their event headers,
/// tombstones left out as Flink's `debezium-json` skips them) and Flink
/// reads their values as its Kafka source would hand them over, one topic
/// per table.
#[test]
#[cfg_attr(
    not(all(cdcctl_flink, cdcctl_kafka)),
    ignore = "needs PyFlink, Java 11+ and tansu: CDCCTL_TEST_FLINK=1 CDCCTL_REQUIRE_KAFKA=1 cargo test"
)]
fn issue16_flink_reads_the_kafka_sink_s_messages_typed_and_ends_in_the_truth() {
    let python = pyflink();
    let broker = crate::kafka::Broker::start();
    let name = "demo";
    let dir = tempfile::tempdir().expect("tempdir");
    let (scenario, until) = run_window(
        dir.path(),
        name,
        &[
            "--sink",
            "kafka",
            "--brokers",
            &broker.addr,
            "--server-name",
            "flink",
            "--tombstones",
        ],
    );
    let topics = crate::kafka::topics_of(&broker.addr, "flink");
    assert!(!topics.is_empty(), "no table topic");
    let messages = crate::kafka::consume(&broker.addr, &topics);
    let (events, _copies) = crate::kafka::deduplicated(&messages);
    let lines: String = events.iter().map(|e| format!("{e}\n")).collect();
    std::fs::write(dir.path().join("out.jsonl"), lines).expect("output written");
    write_truth(dir.path(), name, &until);
    let report = flink_check(&python, dir.path(), &scenario, &["truth.jsonl"]);
    eprintln!(
        "{name} through Kafka ({} messages on {} topics):\n{report}",
        messages.len(),
        topics.len()
    );
}
