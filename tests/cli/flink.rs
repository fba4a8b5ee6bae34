//! A real consumer: Flink's `debezium-json` format reads `run`'s output of
//! every built-in scenario that captures into typed tables, bare and under
//! its Kafka Connect schema (`--envelope connect-json`, read with
//! `'debezium-json.schema-include'`), with LOBs captured, and of a snapshot,
//! and its changelog and final state equal the simulator's ground truth.
//! One Flink session reads the runs of a test (a Flink start costs more
//! than most checks). Built with `CDCCTL_TEST_FLINK=1` (build.rs: the
//! `cdcctl_flink` cfg; `.ci/run` sets it) the tests run, installing PyFlink
//! into `target/flink-venv` on first use (Java 11+); otherwise `cargo test`
//! lists them as ignored, with that reason.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::run::cdcctl;
use cdcctl::source::sim::value::ColType;
use cdcctl::source::sim::{Scenario, BUILTINS};

/// The PyFlink release the check is written against (`.ci/install-pyflink`
/// installs the same).
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

/// A Python with PyFlink, installed on first use (once, whichever test
/// asks first; `.ci/install-pyflink` installs the same beforehand).
fn pyflink() -> PathBuf {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(install_pyflink).clone()
}

fn install_pyflink() -> PathBuf {
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

/// The file sink's options every run here takes: schema changes go to a
/// file of their own, so every line of the output is a row change.
const FILE_SINK: &[&str] = &[
    "--output",
    "out.jsonl",
    "--checkpoint",
    "cp.json",
    "--schema-changes",
    "ddl.jsonl",
];

/// A run for Flink to read: its folder (output, truth, schema), the
/// scenario, and which truth it is checked against.
struct Case {
    label: String,
    dir: tempfile::TempDir,
    scenario: Scenario,
    /// `("truth", file)`: every change up to the run's last SCN;
    /// `("state", file)`: the tables' contents at that SCN.
    truth: (&'static str, &'static str),
}

impl Case {
    /// `run` of a built-in over its first 6,000 SCNs into the file sink
    /// with these options, checked against `sim truth` with `truth_options`.
    fn window(name: &str, options: &[&str], truth_options: &[&str]) -> Case {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut sink = FILE_SINK.to_vec();
        sink.extend_from_slice(options);
        let (scenario, until) = run_window(dir.path(), name, &sink);
        write_truth(dir.path(), name, &until, truth_options);
        Case {
            label: label(&[name], options),
            dir,
            scenario,
            truth: ("truth", "truth.jsonl"),
        }
    }

    /// `snapshot-under-fire` with `--snapshot initial` (its `r` rows, then
    /// the stream) and these options, checked against the tables' contents.
    fn snapshot(options: &[&str]) -> Case {
        let name = "snapshot-under-fire";
        let until = "13100000";
        let dir = tempfile::tempdir().expect("tempdir");
        let mut args = FILE_SINK.to_vec();
        args.extend_from_slice(options);
        args.extend(["--snapshot", "initial", "--until-scn", until]);
        run_ok(dir.path(), name, &args);
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
        Case {
            label: label(&[name, "--snapshot initial"], options),
            dir,
            scenario: builtin(name),
            truth: ("state", "state.jsonl"),
        }
    }

    /// The case as the Flink check reads it, with its schema written.
    fn to_json(&self) -> serde_json::Value {
        std::fs::write(
            self.dir.path().join("schema.json"),
            schema_json(&self.scenario).to_string(),
        )
        .expect("schema written");
        let mut case = serde_json::json!({
            "name": self.label,
            "dir": self.dir.path(),
            "output": "out.jsonl",
            "schema": "schema.json",
            "ddl": "ddl.jsonl",
        });
        case[self.truth.0] = self.truth.1.into();
        case
    }
}

/// `sim truth` of a built-in up to an SCN, with these options, as
/// `truth.jsonl` in `dir`.
fn write_truth(dir: &Path, name: &str, until: &str, options: &[&str]) {
    let mut args = vec!["sim", "truth", "--scenario", name, "--until-scn", until];
    args.extend_from_slice(options);
    let truth = cdcctl(dir, &args);
    assert!(truth.status.success(), "{name}: sim truth failed");
    std::fs::write(dir.join("truth.jsonl"), &truth.stdout).expect("truth written");
}

/// `run` of a built-in over its first 6,000 SCNs with these sink options;
/// the scenario and the window's last SCN.
fn run_window(dir: &Path, name: &str, sink: &[&str]) -> (Scenario, String) {
    let scenario = builtin(name);
    let from = scenario.instance.start_scn.to_string();
    let until = (scenario.instance.start_scn + 6_000).to_string();
    let mut args = sink.to_vec();
    args.extend(["--from-scn", &from, "--until-scn", &until]);
    run_ok(dir, name, &args);
    (scenario, until)
}

/// `run` of a built-in (virtual clock) with these options, which must
/// exit 0.
fn run_ok(dir: &Path, name: &str, options: &[&str]) {
    let source = format!("sim:{name}?clock=virtual");
    let mut args = vec!["--source", &source, "run", "--status-every", "1h"];
    args.extend_from_slice(options);
    let run = cdcctl(dir, &args);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{name}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
}

/// A case's name: the scenario and the options that set it apart.
fn label(head: &[&str], options: &[&str]) -> String {
    let parts: Vec<&str> = head.iter().chain(options).copied().collect();
    parts.join(" ")
}

fn builtin(name: &str) -> Scenario {
    let builtin = BUILTINS
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("no built-in {name}"));
    Scenario::parse(builtin.text, name).expect("built-in scenario parses")
}

/// `work` on each item on threads of their own; the answers in the items'
/// order.
fn side_by_side<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    std::thread::scope(|scope| {
        let work = &work;
        let threads: Vec<_> = items
            .iter()
            .map(|item| scope.spawn(move || work(item)))
            .collect();
        threads
            .into_iter()
            .map(|t| t.join().expect("a thread of side_by_side"))
            .collect()
    })
}

/// Has Flink read `cases` in one session (a Flink start costs more than
/// most checks, and its changelogs cross from the JVM in Arrow batches):
/// its report, or a failure with it.
fn flink_check(python: &Path, cases: &[Case]) -> String {
    let check = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/flink/check_changelog.py");
    let list = tempfile::tempdir().expect("tempdir");
    let cases_json: Vec<serde_json::Value> = cases.iter().map(Case::to_json).collect();
    let path = list.path().join("cases.json");
    std::fs::write(&path, serde_json::Value::from(cases_json).to_string()).expect("cases written");
    let out = Command::new(python)
        .arg(&check)
        .arg(&path)
        .output()
        .expect("the Flink check runs");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// `--lob capture` as the redo logs it: the truth of the events gives an
/// untouched LOB as the marker, where `run` would give the value it
/// remembers (checked against the tables' contents in `lob_images`).
const LOBS_AS_LOGGED: &[&str] = &["--lob", "capture", "--lob-memory-mb", "0"];

/// Every capturing scenario through the file sink, bare; `lobs` also with
/// `--lob capture` (LOB-only updates write the whole row); and the
/// snapshot's `r` rows, ending in the tables' contents.
#[test]
#[cfg_attr(
    not(cdcctl_flink),
    ignore = "needs PyFlink and Java 11+: CDCCTL_TEST_FLINK=1 cargo test"
)]
fn issue16_issue32_flink_reads_every_scenario_lobs_and_snapshot_typed_and_ends_in_the_truth() {
    let python = pyflink();
    let mut cases = side_by_side(CAPTURING, |name| Case::window(name, &[], &[]));
    cases.push(Case::window("lobs", LOBS_AS_LOGGED, &["--lob", "capture"]));
    cases.push(Case::snapshot(&[]));
    eprintln!("{}", flink_check(&python, &cases));
}

/// `--envelope connect-json`: every line is `{"schema", "payload"}` whose
/// schema accepts its payload as Kafka Connect's JsonConverter reads it,
/// and Flink's `debezium-json` with `'debezium-json.schema-include' =
/// 'true'` reads the same typed values as from the bare envelope. `demo`,
/// `lobs` (LOBs captured) and the snapshot scenario hold every column type
/// the simulator has but JSON.
#[test]
#[cfg_attr(
    not(cdcctl_flink),
    ignore = "needs PyFlink and Java 11+: CDCCTL_TEST_FLINK=1 cargo test"
)]
fn issue32_flink_reads_connect_json_with_schema_typed_and_ends_in_the_truth() {
    let python = pyflink();
    let connect = ["--envelope", "connect-json"];
    let cases = [
        Case::window("demo", &connect, &[]),
        Case::window(
            "lobs",
            &[
                "--envelope",
                "connect-json",
                "--lob",
                "capture",
                "--lob-memory-mb",
                "0",
            ],
            &["--lob", "capture"],
        ),
        Case::snapshot(&connect),
    ];
    let report = flink_check(&python, &cases);
    assert!(
        report.contains("under its Kafka Connect schema"),
        "the output was not under a schema:\n{report}"
    );
    eprintln!("{report}");
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
    write_truth(dir.path(), name, &until, &[]);
    let case = Case {
        label: format!(
            "{name} through Kafka ({} messages on {} topics)",
            messages.len(),
            topics.len()
        ),
        dir,
        scenario,
        truth: ("truth", "truth.jsonl"),
    };
    eprintln!("{}", flink_check(&python, &[case]));
}
