//! Drives the real `cdcctl` binary: preflight on hand-built facts fixtures
//! and field-report configs, the JSON contract, exit codes, evidence round
//! trips, `partitions`, `collect`, and the Oracle 19c dictionary check of
//! the catalog's SQL.

use std::collections::{BTreeMap, BTreeSet};

use std::process::{Command, Output};

use serde::Deserialize;

const FIX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/preflight");

fn fixture(name: &str) -> String {
    format!("{FIX}/{name}")
}

fn config(name: &str) -> String {
    format!("{FIX}/configs/{name}")
}

use crate::common::cdcctl;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

// ---- the documented JSON shape, mirrored independently of the library types

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct JsonReport {
    source: JsonSource,
    checks: Vec<JsonCheck>,
    summary: JsonSummary,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct JsonSource {
    source: String,
    dialect: String,
    version: String,
    db_name: String,
    cdb: bool,
    user: String,
    container: String,
    scope: Vec<String>,
    config: Option<String>,
}

#[derive(Debug, Deserialize, PartialEq, Clone)]
#[serde(deny_unknown_fields)]
struct JsonCheck {
    id: String,
    group: String,
    status: String,
    title: String,
    detail: String,
    evidence: Vec<String>,
    remediation: Option<String>,
    references: Vec<String>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct JsonSummary {
    pass: usize,
    warn: usize,
    fail: usize,
    skip: usize,
}

fn json_report(args: &[&str]) -> (JsonReport, Output) {
    let mut a: Vec<&str> = args.to_vec();
    a.extend(["--format", "json"]);
    let o = cdcctl(&a);
    let r: JsonReport = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "not the documented JSON ({e}): {}{}",
            stdout(&o),
            stderr(&o)
        )
    });
    (r, o)
}

fn status_of<'a>(r: &'a JsonReport, id: &str) -> &'a str {
    r.checks
        .iter()
        .find(|c| c.id == id)
        .map(|c| c.status.as_str())
        .unwrap_or_else(|| panic!("no check {id} in the report"))
}

fn not_passing(r: &JsonReport) -> BTreeMap<String, String> {
    r.checks
        .iter()
        .filter(|c| c.status != "pass")
        .map(|c| (c.id.clone(), c.status.clone()))
        .collect()
}

fn facts(name: &str) -> String {
    format!("facts:{}", fixture(name))
}

#[test]
fn json_report_has_the_documented_shape_and_consistent_summary() {
    let (r, o) = json_report(&["--source", &facts("healthy-19c-cdb.json"), "preflight"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(r.source.dialect, "oracle");
    assert!(r.source.cdb);
    let count = |s: &str| r.checks.iter().filter(|c| c.status == s).count();
    assert_eq!(
        (
            r.summary.pass,
            r.summary.warn,
            r.summary.fail,
            r.summary.skip
        ),
        (count("pass"), count("warn"), count("fail"), count("skip"))
    );
    for c in &r.checks {
        assert!(["pass", "warn", "fail", "skip"].contains(&c.status.as_str()));
        assert_eq!(
            c.remediation.is_some(),
            c.status == "warn" || c.status == "fail",
            "{}: remediation only for warnings and failures",
            c.id
        );
        assert!(!c.group.is_empty() && !c.title.is_empty());
    }
}

#[test]
fn healthy_cdb_passes_with_no_warning_or_failure() {
    let (r, _) = json_report(&[
        "--source",
        &facts("healthy-19c-cdb.json"),
        "preflight",
        "--config",
        &config("debezium-healthy.properties"),
    ]);
    let bad: BTreeMap<_, _> = not_passing(&r)
        .into_iter()
        .filter(|(_, s)| s != "skip")
        .collect();
    assert!(bad.is_empty(), "unexpected findings: {bad:?}");
    assert_eq!(status_of(&r, "pdb-open"), "pass");
}

#[test]
fn seed000_flink_config_on_19c_pdb_is_caught() {
    let (r, o) = json_report(&[
        "--source",
        &facts("seed000-19c-pdb-local-user.json"),
        "preflight",
        "--config",
        &config("seed000-flink-oracle-cdc.sql"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    // CONTINUOUS_MINE=true on 19c: ORA-44609.
    assert_eq!(status_of(&r, "cfg-continuous-mine"), "fail");
    // A local user connected to the PDB on 19c: ORA-65040.
    assert_eq!(status_of(&r, "cdb-mining-container"), "fail");
    // database-name names the PDB: Flink CDC wants the CDB there and the
    // PDB in debezium.database.pdb.name.
    assert_eq!(status_of(&r, "cfg-database-name"), "fail");
    // Interval partitions, a replaced segment, the default chunk size: ORA-08103.
    assert_eq!(status_of(&r, "part-churn"), "warn");
    assert_eq!(status_of(&r, "cfg-chunk-size"), "warn");
    // ORA-01555 already recorded in V$UNDOSTAT; the 3 TiB table is read in
    // Flink CDC's chunks, each of which fits in the 900 s of undo.
    assert_eq!(status_of(&r, "undo-vs-snapshot"), "fail");
    assert_eq!(status_of(&r, "cfg-password"), "warn");
    assert_eq!(status_of(&r, "cfg-mining-ranges"), "warn");
    let pw = r.checks.iter().find(|c| c.id == "cfg-password").unwrap();
    assert!(
        !pw.detail.contains("your_password"),
        "the password is never echoed"
    );
}

#[test]
fn seed002_lower_case_table_and_11g_are_caught() {
    let (r, _) = json_report(&[
        "--source",
        &facts("seed002-11g-lowercase-table.json"),
        "preflight",
        "--config",
        &config("seed002-flink-11g.sql"),
    ]);
    assert_eq!(status_of(&r, "cfg-name-case"), "fail");
    let d = &r
        .checks
        .iter()
        .find(|c| c.id == "cfg-name-case")
        .unwrap()
        .detail;
    assert!(d.contains("\"SINFOR\".\"sinfor_user\""), "{d}");
    assert_eq!(status_of(&r, "version-edition"), "warn");
    // CONTINUOUS_MINE still exists on 11g.
    assert_eq!(status_of(&r, "cfg-continuous-mine"), "pass");
    assert_eq!(status_of(&r, "cdb-mining-container"), "pass");
    assert_eq!(status_of(&r, "fra-usage"), "warn");
    assert_eq!(status_of(&r, "tbl-supp-log"), "warn");
    assert_eq!(status_of(&r, "cfg-password"), "warn");
    assert_eq!(status_of(&r, "force-logging"), "pass");
}

#[test]
fn seed001_pipeline_with_local_user_in_pdb_fails_mining_container_but_not_password() {
    let (r, _) = json_report(&[
        "--source",
        &facts("seed000-19c-pdb-local-user.json"),
        "preflight",
        "--config",
        &config("seed001-pipeline.yaml"),
    ]);
    assert_eq!(status_of(&r, "cdb-mining-container"), "fail");
    assert_eq!(
        status_of(&r, "cfg-password"),
        "pass",
        "a masked password is not clear text"
    );
    assert_eq!(status_of(&r, "cfg-service"), "pass");
}

#[test]
fn debezium_json_config_errors_are_each_reported() {
    let (r, _) = json_report(&[
        "--source",
        &facts("healthy-19c-cdb.json"),
        "preflight",
        "--config",
        &config("debezium-connect.json"),
    ]);
    assert_eq!(status_of(&r, "cfg-archive-dest"), "fail");
    assert_eq!(status_of(&r, "cfg-database-name"), "fail");
    assert_eq!(status_of(&r, "pdb-open"), "fail");
    assert_eq!(status_of(&r, "cfg-lint"), "fail");
    assert_eq!(status_of(&r, "cfg-mining-ranges"), "warn");
    assert_eq!(status_of(&r, "tbl-lob-xml"), "pass");
}

#[test]
fn dm8_and_yashandb_sources_run_their_own_checks() {
    let (dm, _) = json_report(&["--source", &facts("dm8-pk-only-logging.json"), "preflight"]);
    assert!(dm.checks.iter().all(|c| c.group == "dm"));
    assert_eq!(status_of(&dm, "dm-logic-log"), "warn");
    assert_eq!(status_of(&dm, "dm-pkg"), "fail");
    assert_eq!(status_of(&dm, "dm-arch"), "pass");
    let (ys, _) = json_report(&[
        "--source",
        &facts("yashandb-no-server.json"),
        "preflight",
        "--config",
        &config("seed004-yashandb-cdc.sql"),
    ]);
    assert!(ys.checks.iter().all(|c| c.group == "yashandb"));
    for id in [
        "ys-pool",
        "ys-server",
        "ys-grants",
        "ys-types",
        "ys-arch-supp",
    ] {
        assert_eq!(status_of(&ys, id), "fail", "{id}");
    }
    assert_eq!(status_of(&ys, "ys-startscn-hygiene"), "warn");
}

#[test]
fn fail_on_warn_turns_warnings_into_exit_1() {
    let args = [
        "--source",
        &facts("dm8-pk-only-logging.json"),
        "preflight",
        "--table",
        "BIZ.ORDERS",
    ];
    let o = cdcctl(&args);
    assert_eq!(o.status.code(), Some(1), "a failure exits 1");
    let healthy = facts("healthy-19c-cdb.json");
    let o = cdcctl(&["--source", &healthy, "preflight", "--fail-on", "warn"]);
    assert_eq!(o.status.code(), Some(0));
    let o = cdcctl(&[
        "--source",
        &facts("seed002-11g-lowercase-table.json"),
        "preflight",
        "--fail-on",
        "warn",
    ]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn table_patterns_scope_the_per_table_checks() {
    let (r, _) = json_report(&[
        "--source",
        &facts("healthy-19c-cdb.json"),
        "preflight",
        "--table",
        "app.ord%",
    ]);
    assert_eq!(r.source.scope, vec!["APP.ORD%".to_string()]);
    assert_ne!(status_of(&r, "tbl-key"), "skip");
    // A bare name is looked up in every schema and resolves to the one table.
    let (r, _) = json_report(&[
        "--source",
        &facts("healthy-19c-cdb.json"),
        "preflight",
        "--table",
        "ORDERS",
    ]);
    assert_eq!(r.source.scope, vec!["APP.ORDERS".to_string()]);
    // A pattern that matches nothing is a usage error, never a clean scope.
    let o = cdcctl(&[
        "--source",
        &facts("healthy-19c-cdb.json"),
        "preflight",
        "--table",
        "app.nothing%",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no table matches `APP.NOTHING%`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn unreadable_config_exits_2_with_one_clear_sentence() {
    let healthy = facts("healthy-19c-cdb.json");
    for bad in [config("not-a-config.txt"), config("does-not-exist.sql")] {
        let o = cdcctl(&["--source", &healthy, "preflight", "--config", &bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        let e = stderr(&o);
        assert!(
            e.starts_with("cdcctl preflight: ") && e.trim().lines().count() == 1,
            "{e}"
        );
        assert!(!e.contains("panicked"));
    }
}

#[test]
fn evidence_from_another_tool_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("other.json");
    std::fs::write(
        &other,
        r#"{"format":"dms-assessment","version":1,"queries":{}}"#,
    )
    .unwrap();
    let text = dir.path().join("text.json");
    std::fs::write(&text, "SQL*Plus: Release 19.0.0.0.0\nORA-00942").unwrap();
    for f in [&other, &text] {
        let o = cdcctl(&["preflight", "--evidence", f.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains("cdcctl collect"), "{}", stderr(&o));
    }
}

#[test]
fn unknown_source_and_unreachable_oracle_have_distinct_exit_codes() {
    let o = cdcctl(&["--source", "mysql://x", "preflight"]);
    assert_eq!(o.status.code(), Some(2));
    let o = cdcctl(&[
        "--source",
        "oracle://c##dbzuser@db:1521/ORCLCDB",
        "preflight",
    ]);
    assert_eq!(o.status.code(), Some(3));
}

/// Whether every element opened in `xml` is closed in order (attribute
/// values are escaped by the writer, so a `<` or `>` in one is not markup).
fn well_formed(xml: &str) -> bool {
    let mut open: Vec<&str> = Vec::new();
    let body = xml
        .trim_start()
        .strip_prefix("<?xml")
        .and_then(|r| r.split_once("?>"));
    let Some((_, mut rest)) = body else {
        return false;
    };
    while let Some(start) = rest.find('<') {
        let Some(len) = rest[start..].find('>') else {
            return false;
        };
        let tag = &rest[start + 1..start + len];
        rest = &rest[start + len + 1..];
        if let Some(closing) = tag.strip_prefix('/') {
            if open.pop() != Some(closing.trim()) {
                return false;
            }
        } else if !tag.ends_with('/') {
            open.push(tag.split_whitespace().next().unwrap_or(tag));
        }
    }
    open.is_empty()
}

#[test]
fn an_unreachable_source_still_writes_a_json_and_a_junit_report_naming_the_error_issue36() {
    let source = "oracle://nobody@127.0.0.1:1/x";
    let o = cdcctl(&["--source", source, "preflight", "--format", "json"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): `{}`", stdout(&o)));
    assert_eq!(v["exit_code"], 3, "{v}");
    let error = v["error"].as_str().expect("an error message");
    assert!(
        !error.is_empty() && stderr(&o).contains(error.lines().next().unwrap_or(error)),
        "{v}"
    );

    let o = cdcctl(&["--source", source, "preflight", "--format", "junit"]);
    assert_eq!(o.status.code(), Some(3));
    let xml = stdout(&o);
    assert!(well_formed(&xml), "{xml}");
    assert!(
        xml.contains("tests=\"1\" failures=\"0\" errors=\"1\""),
        "{xml}"
    );
    assert!(xml.contains("<error type=\"exit 3\" message=\""), "{xml}");

    // A usage error (exit 2) is reported the same way.
    let healthy = facts("healthy-19c-cdb.json");
    let missing = config("does-not-exist.sql");
    let o = cdcctl(&[
        "--source",
        &healthy,
        "preflight",
        "--config",
        &missing,
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("a JSON report");
    assert_eq!(v["exit_code"], 2, "{v}");
    assert!(
        v["error"]
            .as_str()
            .is_some_and(|e| e.contains("does-not-exist.sql")),
        "{v}"
    );
    // The human format keeps stdout empty: the error is on stderr.
    let o = cdcctl(&["--source", source, "preflight"]);
    assert!(o.stdout.is_empty(), "{}", stdout(&o));
}

#[test]
fn the_xml_check_refuses_unbalanced_markup() {
    assert!(well_formed(
        "<?xml version=\"1.0\"?><a><b x=\"1\"/><c></c></a>"
    ));
    assert!(!well_formed("<?xml version=\"1.0\"?><a><b></a></b>"));
    assert!(!well_formed("<a></a>"), "no declaration");
    assert!(!well_formed(""));
}

fn roundtrip(fixture_name: &str, extra: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let ev = dir.path().join("evidence.json");
    let src = facts(fixture_name);
    let o = cdcctl(&[
        "--source",
        &src,
        "collect",
        "--from-source",
        "-o",
        ev.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut live = vec!["--source", src.as_str(), "preflight"];
    live.extend(extra);
    let evs = ev.to_str().unwrap().to_string();
    let mut off = vec!["preflight", "--evidence", evs.as_str()];
    off.extend(extra);
    let (a, _) = json_report(&live);
    let (b, _) = json_report(&off);
    assert_eq!(
        a.checks, b.checks,
        "{fixture_name}: evidence evaluates differently"
    );
}

#[test]
fn evidence_from_a_source_evaluates_to_the_same_findings() {
    roundtrip("healthy-19c-cdb.json", &[]);
    roundtrip(
        "seed000-19c-pdb-local-user.json",
        &["--config", &config("seed000-flink-oracle-cdc.sql")],
    );
    roundtrip(
        "seed002-11g-lowercase-table.json",
        &["--config", &config("seed002-flink-11g.sql")],
    );
    roundtrip("dm8-pk-only-logging.json", &[]);
    roundtrip(
        "yashandb-no-server.json",
        &["--config", &config("seed004-yashandb-cdc.sql")],
    );
}

#[test]
fn partitions_shows_interval_risk_and_advice() {
    let o = cdcctl(&[
        "--source",
        &facts("seed000-19c-pdb-local-user.json"),
        "partitions",
        "app.order_his",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["interval"], "NUMTOYMINTERVAL(1, 'MONTH')");
    let kinds: BTreeSet<String> = v["risks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap().to_string())
        .collect();
    for k in [
        "interval-during-snapshot",
        "segment-replaced",
        "recent-ddl",
        "unusable-index",
    ] {
        assert!(kinds.contains(k), "{k} missing from {kinds:?}");
    }
    assert!(v["advice"].to_string().contains("SET INTERVAL ()"));
}

#[test]
fn partitions_of_a_missing_table_suggests_close_names_and_exits_2() {
    let o = cdcctl(&[
        "--source",
        &facts("seed000-19c-pdb-local-user.json"),
        "partitions",
        "APP.ORDER_HIST",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("no table matches") && e.contains("did you mean APP.ORDER_HIS"),
        "{e}"
    );
    assert!(e.starts_with("cdcctl partitions: "), "{e}");
    let o = cdcctl(&[
        "--source",
        &facts("seed000-19c-pdb-local-user.json"),
        "partitions",
        "ORDER_HIS",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "an unambiguous bare name is enough: {}",
        stderr(&o)
    );
}

#[test]
fn explain_and_list_read_the_catalog() {
    let o = cdcctl(&["preflight", "--list"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("cfg-continuous-mine"));
    let o = cdcctl(&["preflight", "--explain", "undo-vs-snapshot"]);
    assert!(stdout(&o).contains("ORA-01555") && stdout(&o).contains("v$undostat"));
    let o = cdcctl(&["preflight", "--explain", "undo"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("undo-vs-snapshot"));
}

#[test]
fn collect_prints_a_spooling_script_of_every_named_query() {
    let o = cdcctl(&["collect", "--table", "APP.ORDER%"]);
    assert_eq!(o.status.code(), Some(0));
    let s = stdout(&o);
    assert!(s.contains("SPOOL cdcctl-evidence.json") && s.contains("SPOOL OFF"));
    assert!(s.contains("json_object("));
    assert!(s.contains("table_name LIKE 'ORDER%'"));
    for name in [
        "database",
        "archived_logs",
        "tab_partitions",
        "object_access",
        "flashback_probe",
    ] {
        assert!(s.contains(&format!("('{name}', ")), "{name}");
    }
}

#[test]
fn collect_version_picks_the_script_without_json_object_before_18c() {
    let o = cdcctl(&["collect", "--oracle-version", "11.2"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(s.contains("against Oracle 11.2"));
    assert!(!s.to_ascii_lowercase().contains("json_object("));
    assert!(s.contains("qd('tab_partitions'"));
    let o = cdcctl(&["collect", "--oracle-version", "10.2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("11.2"), "{}", stderr(&o));
    let help = stdout(&cdcctl(&["collect", "--help"]));
    assert!(
        help.contains("--oracle-version") && help.contains("11.2"),
        "{help}"
    );
}

/// Issue 36: `collect --version` named an Oracle release while
/// `cdcctl --version` prints the tool's; the help shows only the
/// unambiguous spelling and the old one still works.
#[test]
fn collect_oracle_release_option_is_not_called_version_issue36() {
    let help = stdout(&cdcctl(&["collect", "--help"]));
    assert!(help.contains("--oracle-version <RELEASE>"), "{help}");
    assert!(!help.contains("--version"), "{help}");
    let old = cdcctl(&["collect", "--version", "12.1"]);
    assert_eq!(old.status.code(), Some(0), "{}", stderr(&old));
    assert!(stdout(&old).contains("against Oracle 12.1"));
}

// ---- snapshots of what people see

fn snap(name: &str, text: &str) {
    // The simulator's count of open transactions depends on where its
    // workload stands when the catalog is read.
    insta::with_settings!({
        snapshot_path => "../../snapshots",
        prepend_module_to_snapshot => false,
        filters => vec![(r"\d+ open transaction\(s\)", "[n] open transaction(s)")],
    }, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn snapshot_human_and_json_reports() {
    // Relative paths, run from the fixtures directory: table wrapping must
    // not depend on where the repository is checked out.
    let healthy = "facts:healthy-19c-cdb.json".to_string();
    let seed = "facts:seed000-19c-pdb-local-user.json".to_string();
    let cfg = "configs/seed000-flink-oracle-cdc.sql".to_string();
    // When, where and how fast the checks ran differ on every run.
    let strip = |s: String| {
        let mut s = s;
        for attr in [" time=\"", " timestamp=\"", " hostname=\""] {
            let mut out = String::new();
            let mut rest = s.as_str();
            while let Some(i) = rest.find(attr) {
                out.push_str(&rest[..i + attr.len()]);
                rest = &rest[i + attr.len()..];
                let end = rest.find('"').unwrap_or(rest.len());
                out.push_str("[..]");
                rest = &rest[end..];
            }
            out.push_str(rest);
            s = out;
        }
        s
    };
    let cdcctl = |args: &[&str]| -> Output {
        Command::new(env!("CARGO_BIN_EXE_cdcctl"))
            .args(args)
            .current_dir(FIX)
            .env_remove("CDCCTL_SOURCE")
            .env("NO_COLOR", "1")
            .output()
            .expect("the cdcctl binary runs")
    };
    snap(
        "preflight_healthy_human",
        &strip(stdout(&cdcctl(&["--source", &healthy, "preflight"]))),
    );
    snap(
        "preflight_seed000_human",
        &strip(stdout(&cdcctl(&[
            "--source",
            &seed,
            "preflight",
            "--config",
            &cfg,
        ]))),
    );
    snap(
        "preflight_seed000_json",
        &strip(stdout(&cdcctl(&[
            "--source",
            &seed,
            "preflight",
            "--config",
            &cfg,
            "--format",
            "json",
        ]))),
    );
    snap(
        "preflight_seed000_junit",
        &strip(stdout(&cdcctl(&[
            "--source",
            &seed,
            "preflight",
            "--config",
            &cfg,
            "--format",
            "junit",
        ]))),
    );
    snap(
        "partitions_seed000_human",
        &stdout(&cdcctl(&["--source", &seed, "partitions", "APP.ORDER_HIS"])),
    );
}

// ---- every view and column of the Oracle SQL exists in Oracle 19c

const KEYWORDS: &[&str] = &[
    "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "IN", "IS", "NULL", "AS", "ON", "JOIN", "LEFT",
    "RIGHT", "INNER", "OUTER", "GROUP", "BY", "ORDER", "HAVING", "LIKE", "BETWEEN", "CASE", "WHEN",
    "THEN", "ELSE", "END", "DISTINCT", "UNION", "ALL", "EXISTS", "WITH",
];
/// Pseudo-columns Oracle provides everywhere.
const PSEUDO: &[&str] = &["SYSDATE", "USER", "ROWNUM", "COLUMN_VALUE", "LEVEL"];

fn dictionary() -> BTreeMap<String, BTreeSet<String>> {
    let text = std::fs::read_to_string(fixture("oracle19c-dictionary.txt")).unwrap();
    let mut m: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (v, c) = line.split_once('.').expect("VIEW.COLUMN");
        m.entry(v.to_string()).or_default().insert(c.to_string());
    }
    m
}

fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Views (after FROM/JOIN) with their aliases, and column references, of one statement.
/// Alias (or view name) → view, and (qualifier, column) references.
type Parsed = (BTreeMap<String, String>, Vec<(Option<String>, String)>);

fn views_and_columns(sql: &str) -> Parsed {
    let toks = cdcctl::preflight::collect::tokens(sql);
    let up: Vec<String> = toks.iter().map(|t| t.to_ascii_uppercase()).collect();
    let mut aliases: BTreeMap<String, String> = BTreeMap::new();
    let mut skip: BTreeSet<usize> = BTreeSet::new();
    for i in 0..up.len() {
        if (up[i] == "FROM" || up[i] == "JOIN") && i + 1 < up.len() && is_ident(&up[i + 1]) {
            let view = up[i + 1].clone();
            skip.insert(i + 1);
            aliases.insert(view.clone(), view.clone());
            if let Some(a) = up.get(i + 2) {
                if is_ident(a) && !KEYWORDS.contains(&a.as_str()) {
                    aliases.insert(a.clone(), view.clone());
                    skip.insert(i + 2);
                }
            }
        }
        // A subquery alias: `) h` after a closing parenthesis.
        if up[i] == ")" {
            if let Some(a) = up.get(i + 1) {
                if is_ident(a) && !KEYWORDS.contains(&a.as_str()) {
                    aliases.insert(a.clone(), String::new());
                    skip.insert(i + 1);
                }
            }
        }
        if up[i] == "AS" && i + 1 < up.len() {
            skip.insert(i + 1);
        }
    }
    let mut cols = Vec::new();
    for i in 0..up.len() {
        let t = &up[i];
        if skip.contains(&i)
            || !is_ident(t)
            || KEYWORDS.contains(&t.as_str())
            || PSEUDO.contains(&t.as_str())
        {
            continue;
        }
        if up.get(i + 1).map(String::as_str) == Some("(") {
            continue; // a function
        }
        if up.get(i + 1).map(String::as_str) == Some(".") {
            continue; // a qualifier; the column follows
        }
        let qualifier = if i >= 2 && up[i - 1] == "." {
            Some(up[i - 2].clone())
        } else {
            None
        };
        cols.push((qualifier, t.clone()));
    }
    (aliases, cols)
}

#[test]
fn oracle_sql_in_checks_uses_only_19c_views_and_columns() {
    let dict = dictionary();
    let defs = cdcctl::preflight::defs::load().unwrap();
    let mut problems = Vec::new();
    let mut views_seen = BTreeSet::new();
    for q in defs
        .iter()
        .flat_map(|d| d.sql.iter())
        .filter(|q| format!("{:?}", q.dialect) == "Oracle")
    {
        let (aliases, cols) = views_and_columns(&q.text);
        let views: BTreeSet<String> = aliases
            .values()
            .filter(|v| !v.is_empty() && !v.starts_with("CDCCTL_"))
            .cloned()
            .collect();
        for v in &views {
            views_seen.insert(v.clone());
            if !dict.contains_key(v) {
                problems.push(format!("{}: view {v} is not in the 19c list", q.name));
            }
        }
        let script_defined = aliases.values().any(|v| v.starts_with("CDCCTL_"));
        for (qual, col) in cols {
            let candidates: Vec<&String> = match &qual {
                Some(a) => aliases
                    .get(a)
                    .into_iter()
                    .filter(|v| !v.is_empty() && !v.starts_with("CDCCTL_"))
                    .collect(),
                None => views.iter().collect(),
            };
            if candidates.is_empty() && (script_defined || qual.is_some()) {
                continue; // a column of a script-defined row source or a subquery
            }
            if !candidates
                .iter()
                .any(|v| dict.get(*v).is_some_and(|c| c.contains(&col)))
            {
                problems.push(format!(
                    "{}: column {col} is in none of {candidates:?}",
                    q.name
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(
        views_seen.len() >= 30,
        "only {} views checked",
        views_seen.len()
    );
}

#[test]
fn the_dictionary_check_catches_a_wrong_column() {
    let dict = dictionary();
    let (aliases, cols) = views_and_columns("SELECT log_mode, flashback_status FROM v$database");
    assert_eq!(
        aliases.get("V$DATABASE").map(String::as_str),
        Some("V$DATABASE")
    );
    let missing: Vec<String> = cols
        .into_iter()
        .filter(|(_, c)| !dict["V$DATABASE"].contains(c))
        .map(|(_, c)| c)
        .collect();
    assert_eq!(missing, vec!["FLASHBACK_STATUS".to_string()]);
}

// ---- the built-in simulator's scenarios

/// Warnings every simulated instance shows: its online logs are a few MiB so
/// that they switch quickly, and the default profile expires passwords after
/// 180 days.
const SIM_BASELINE: &[(&str, &str)] = &[("redo-size", "warn"), ("profile", "warn")];

fn findings(r: &JsonReport) -> BTreeSet<(String, String)> {
    r.checks
        .iter()
        .filter(|c| c.status == "warn" || c.status == "fail")
        .map(|c| (c.id.clone(), c.status.clone()))
        .collect()
}

#[test]
fn demo_scenario_passes_with_no_failure() {
    let (r, o) = json_report(&["--source", "sim:demo", "preflight"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(r.summary.fail, 0, "{:?}", findings(&r));
    let (plain, _) = json_report(&["--source", "sim", "preflight"]);
    let statuses = |r: &JsonReport| -> Vec<(String, String)> {
        r.checks
            .iter()
            .map(|c| (c.id.clone(), c.status.clone()))
            .collect()
    };
    assert_eq!(statuses(&plain), statuses(&r), "`sim` is the demo scenario");
}

#[test]
fn each_scenario_flags_exactly_its_misconfiguration() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        ("demo", &[("tbl-lob-xml", "warn")]),
        ("noarchivelog", &[("archivelog-mode", "fail")]),
        (
            "no-supplemental-logging",
            &[("supp-min", "fail"), ("tbl-supp-log", "warn")],
        ),
        (
            "missing-grants",
            &[
                ("priv-sys", "fail"),
                ("priv-scope", "fail"),
                ("flashback-probe", "fail"),
                ("smoke-mine", "fail"),
            ],
        ),
        (
            "wrong-container",
            &[("cdb-mining-container", "fail"), ("smoke-mine", "fail")],
        ),
        // ORA-01555 already in V$UNDOSTAT, and 96% of the recovery area
        // used with nothing reclaimable: both FAIL by default.
        ("undo-too-small", &[("undo-vs-snapshot", "fail")]),
        ("fra-nearly-full", &[("fra-usage", "fail")]),
        (
            "archive-gap",
            &[
                ("arch-gap", "fail"),
                ("arch-retention", "fail"),
                ("arch-files-present", "warn"),
            ],
        ),
        // The warm-up moves a partition: churn and recent DDL both show.
        (
            "interval-partition-churn",
            &[("part-churn", "warn"), ("tbl-recent-ddl", "warn")],
        ),
        ("long-transaction", &[("long-txn", "warn")]),
        ("big-transaction", &[]),
        ("oracle11g", &[("version-edition", "warn")]),
    ];
    let mut wrong = Vec::new();
    for (scenario, extra) in cases {
        let (r, _) = json_report(&["--source", &format!("sim:{scenario}"), "preflight"]);
        let expected: BTreeSet<(String, String)> = SIM_BASELINE
            .iter()
            .chain(extra.iter())
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        let got = findings(&r);
        if got != expected {
            wrong.push(format!(
                "{scenario}: unexpected {:?}, missing {:?}",
                got.difference(&expected).collect::<Vec<_>>(),
                expected.difference(&got).collect::<Vec<_>>()
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn dm8_scenarios_flag_exactly_their_misconfiguration_and_run_only_dm8_checks() {
    /// Scenario, its (check, status) findings, the exit code.
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], i32);
    // Every DM8 scenario has APP.EVENTS without a key and LOB columns
    // whose large values DM8 does not log.
    let cases: &[Case] = &[
        (
            "dm8",
            &[("dm-tbl-key", "warn"), ("dm-tbl-types", "warn")],
            0,
        ),
        (
            "dm8-append-logic-0",
            &[
                ("dm-tbl-key", "warn"),
                ("dm-tbl-types", "warn"),
                ("dm-logic-log", "fail"),
            ],
            1,
        ),
        (
            "dm8-no-arch",
            &[
                ("dm-tbl-key", "warn"),
                ("dm-tbl-types", "warn"),
                ("dm-arch", "fail"),
                ("dm-arch-dest", "fail"),
                ("dm-archive-only", "fail"),
            ],
            1,
        ),
    ];
    let mut wrong = Vec::new();
    for (scenario, flagged, code) in cases {
        let (r, o) = json_report(&["--source", &format!("sim:{scenario}"), "preflight"]);
        assert_eq!(o.status.code(), Some(*code), "{scenario}: {}", stderr(&o));
        // Oracle's checks have no meaning on DM8: none is evaluated, and
        // the DM8 ones all are, none skipped for want of a fact.
        let ids: BTreeSet<&str> = r.checks.iter().map(|c| c.id.as_str()).collect();
        assert!(
            ids.iter().all(|id| id.starts_with("dm-")),
            "{scenario}: {ids:?}"
        );
        for id in [
            "dm-arch",
            "dm-arch-dest",
            "dm-archive-only",
            "dm-logic-log",
            "dm-pkg",
            "dm-grants",
        ] {
            assert!(ids.contains(id), "{scenario}: {id} not evaluated");
        }
        assert_eq!(
            r.summary.skip,
            0,
            "{scenario}: {:?}",
            r.checks
                .iter()
                .filter(|c| c.status == "skip")
                .map(|c| &c.id)
                .collect::<Vec<_>>()
        );
        let expected: BTreeSet<(String, String)> = flagged
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        let got = findings(&r);
        if got != expected {
            wrong.push(format!(
                "{scenario}: unexpected {:?}, missing {:?}",
                got.difference(&expected).collect::<Vec<_>>(),
                expected.difference(&got).collect::<Vec<_>>()
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn evidence_from_each_scenario_evaluates_to_the_same_findings_as_the_live_run() {
    use cdcctl::preflight::facts::{Facts, RuleOptions};
    use cdcctl::source::evidence::{
        EvidenceCatalog, EvidenceFile, FactsSnapshot, SnapshotTransaction,
    };
    use cdcctl::source::sim::Sim;
    use cdcctl::source::Catalog;

    let defs = cdcctl::preflight::defs::load().unwrap();
    for scenario in cdcctl::source::sim::BUILTINS.iter().map(|b| b.name) {
        let mut sim = Sim::from_spec(scenario).unwrap();
        // One moment of the instance, read once: what the live run sees.
        let moment = FactsSnapshot {
            instance: sim.instance().ok(),
            session: sim.session().ok(),
            tables: sim.tables(&[]).ok(),
            transactions: sim.transaction_sessions().ok().map(|v| {
                v.into_iter()
                    .map(|t| SnapshotTransaction {
                        transaction: t.transaction,
                        session: t.session,
                    })
                    .collect()
            }),
            inventory: sim.log_inventory().ok(),
        };
        let mut live = moment.clone();
        // What `collect --from-source` writes: the facts preflight gathers.
        let ev = Facts::gather(
            &mut live.clone() as &mut dyn Catalog,
            &[],
            None,
            RuleOptions::default(),
            |_| {},
        )
        .unwrap()
        .to_evidence("sim");
        let text = serde_json::to_string(&ev).unwrap();
        let mut offline =
            EvidenceCatalog::from_file(&EvidenceFile::parse(&text, "ev").unwrap(), "ev");
        let a = Facts::gather(
            &mut live as &mut dyn Catalog,
            &[],
            None,
            RuleOptions::default(),
            |_| {},
        )
        .unwrap();
        let b = Facts::gather(&mut offline, &[], None, RuleOptions::default(), |_| {}).unwrap();
        let ra = cdcctl::preflight::run(&defs, &a, "x");
        let rb = cdcctl::preflight::run(&defs, &b, "x");
        let key = |r: &cdcctl::preflight::model::Report| -> Vec<(String, String, String)> {
            r.checks
                .iter()
                .map(|c| {
                    (
                        c.id.clone(),
                        c.status.as_str().to_string(),
                        c.detail.clone(),
                    )
                })
                .collect()
        };
        assert_eq!(key(&ra), key(&rb), "{scenario}");
    }
}

#[test]
fn snapshot_demo_and_churn_scenarios() {
    snap(
        "preflight_sim_demo_human",
        &stdout(&cdcctl(&["--source", "sim:demo", "preflight"])),
    );
    snap(
        "preflight_sim_demo_json",
        &stdout(&cdcctl(&[
            "--source",
            "sim:demo",
            "preflight",
            "--format",
            "json",
        ])),
    );
    snap(
        "preflight_sim_churn_human",
        &stdout(&cdcctl(&[
            "--source",
            "sim:interval-partition-churn",
            "preflight",
        ])),
    );
    snap(
        "partitions_sim_churn_human",
        &stdout(&cdcctl(&[
            "--source",
            "sim:interval-partition-churn",
            "partitions",
            "APP.ORDER_HIS",
        ])),
    );
}

#[test]
fn an_evidence_file_with_refused_queries_still_evaluates() {
    let (r, o) = json_report(&["preflight", "--evidence", &fixture("evidence-19c-cdb.json")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(r.source.source.starts_with("evidence:"));
    assert_eq!(r.source.version, "19.22.0.0.0");
    // CDB_CONTAINER_DATA was refused: unknown, not empty.
    assert_eq!(status_of(&r, "container-data"), "skip");
    assert_eq!(status_of(&r, "priv-objects"), "pass");
    assert_eq!(status_of(&r, "archivelog-mode"), "pass");
}

#[test]
fn smoke_mine_runs_only_on_live_sources() {
    let (live, _) = json_report(&["--source", "sim:demo", "preflight"]);
    assert_eq!(status_of(&live, "smoke-mine"), "pass");
    let mined = live.checks.iter().find(|c| c.id == "smoke-mine").unwrap();
    assert!(
        mined.evidence.iter().any(|e| e.starts_with("mined ")),
        "{mined:?}"
    );
    let (offline, _) = json_report(&["preflight", "--evidence", &fixture("evidence-19c-cdb.json")]);
    assert_eq!(status_of(&offline, "smoke-mine"), "skip");
    let (mg, _) = json_report(&["--source", "sim:missing-grants", "preflight"]);
    let c = mg.checks.iter().find(|c| c.id == "smoke-mine").unwrap();
    assert!(c.detail.contains("ORA-01031"), "{}", c.detail);
}

/// The demo scenario with `edit` applied to its text, written to a temp dir.
fn demo_variant(dir: &tempfile::TempDir, name: &str, edit: impl Fn(&str) -> String) -> String {
    let demo = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/source/sim/scenarios/demo.toml"
    ))
    .unwrap();
    let text = edit(&demo).replace("name = \"demo\"", &format!("name = \"{name}\""));
    let path = dir.path().join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    format!("sim:{}", path.display())
}

#[test]
fn dbms_logmnr_without_execute_fails_preflight_on_19c() {
    let dir = tempfile::tempdir().unwrap();
    // LOGMINING and SELECT_CATALOG_ROLE, as the 19c documentation's minimum
    // is often misread, but no EXECUTE on the package.
    let no_execute = demo_variant(&dir, "no-execute", |t| {
        t.replace(
            "container = \"CDB$ROOT\"\n",
            "container = \"CDB$ROOT\"\nroles = [\"SELECT_CATALOG_ROLE\"]\n",
        )
    });
    let (r, _) = json_report(&["--source", &no_execute, "preflight"]);
    assert_eq!(status_of(&r, "priv-sys"), "fail");
    assert_eq!(status_of(&r, "priv-objects"), "fail");
    let objects = r.checks.iter().find(|c| c.id == "priv-objects").unwrap();
    assert!(
        objects.detail.contains("DBMS_LOGMNR: ORA-06550"),
        "{objects:?}"
    );
    assert_eq!(status_of(&r, "smoke-mine"), "fail");

    // A direct grant is as good as the role.
    let direct = demo_variant(&dir, "direct-execute", |t| {
        t.replace(
            "container = \"CDB$ROOT\"\n",
            "container = \"CDB$ROOT\"\nroles = [\"SELECT_CATALOG_ROLE\"]\nexecute_on = [\"DBMS_LOGMNR\"]\n",
        )
    });
    let (r, _) = json_report(&["--source", &direct, "preflight"]);
    for id in ["priv-sys", "priv-objects", "smoke-mine"] {
        assert_eq!(status_of(&r, id), "pass", "{id}");
    }
}

#[test]
fn smoke_mine_on_a_data_guard_primary_reads_the_local_archive() {
    let dir = tempfile::tempdir().unwrap();
    // V$ARCHIVED_LOG of a primary also lists every archive shipped to the
    // standby (DEST_ID 2, NAME = the service), which LogMiner cannot open.
    let primary = demo_variant(&dir, "dg-primary", |t| {
        t.replace(
            "destinations = [{ id = 1, destination = \"USE_DB_RECOVERY_FILE_DEST\" }]",
            "destinations = [{ id = 1, destination = \"USE_DB_RECOVERY_FILE_DEST\" }, \
             { id = 2, destination = \"SERVICE=stby ASYNC DB_UNIQUE_NAME=stby\" }]",
        )
    });
    let (r, o) = json_report(&["--source", &primary, "preflight"]);
    let mined = r.checks.iter().find(|c| c.id == "smoke-mine").unwrap();
    assert_eq!(mined.status, "pass", "{mined:?} {}", stderr(&o));
    assert!(
        mined
            .evidence
            .iter()
            .any(|e| e.starts_with("mined ") && e.contains("fast_recovery_area")),
        "{mined:?}"
    );
}

#[test]
fn issue10_preflight_without_the_database_s_own_facts_fails_instead_of_passing_on_skips() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = std::fs::read_to_string(fixture("evidence-19c-cdb.json")).expect("fixture");
    let mut evidence: serde_json::Value = serde_json::from_str(&text).expect("json");
    evidence["queries"]["database"] = serde_json::json!({"error": "ORA-01031"});
    let path = dir.path().join("refused.json");
    std::fs::write(&path, evidence.to_string()).expect("write");
    let path = path.to_string_lossy().into_owned();
    let out = cdcctl(&["preflight", "--evidence", &path, "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("report");
    let checks = report["checks"].as_array().expect("checks");
    let facts = checks
        .iter()
        .find(|c| c["id"] == "instance-facts")
        .expect("instance-facts check");
    assert_eq!(facts["status"], "fail");
    assert!(facts["detail"].as_str().unwrap_or("").contains("ORA-01031"));
    // With V$DATABASE readable the same evidence has no such check.
    let out = cdcctl(&[
        "preflight",
        "--evidence",
        &fixture("evidence-19c-cdb.json"),
        "--format",
        "json",
    ]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("report");
    assert!(report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .all(|c| c["id"] != "instance-facts"));
}

fn remediation_of(r: &JsonReport, id: &str) -> String {
    r.checks
        .iter()
        .find(|c| c.id == id)
        .and_then(|c| c.remediation.clone())
        .unwrap_or_else(|| panic!("{id} has no remediation"))
}

#[test]
fn issue11_remediation_names_the_user_tables_and_sequences_the_check_found() {
    let (r, _) = json_report(&[
        "--source",
        &facts("seed000-19c-pdb-local-user.json"),
        "preflight",
    ]);
    let grants = remediation_of(&r, "priv-sys");
    assert!(grants.contains("TO FLINK_USER;"), "{grants}");
    assert!(
        !grants.contains("dbzuser") && !grants.contains("CONTAINER=ALL"),
        "a local user gets its own name and no CONTAINER clause: {grants}"
    );
    assert_eq!(
        remediation_of(&r, "tbl-supp-log"),
        "ALTER TABLE APP.ORDER_HIS ADD SUPPLEMENTAL LOG DATA (ALL) COLUMNS;"
    );
    let (r, _) = json_report(&[
        "--source",
        &facts("seed002-11g-lowercase-table.json"),
        "preflight",
    ]);
    assert!(
        remediation_of(&r, "tbl-supp-log").contains("SINFOR.\"sinfor_user\""),
        "a lower-case name is quoted"
    );
    let (r, _) = json_report(&["--source", "sim:archive-gap", "preflight"]);
    let restore = remediation_of(&r, "arch-gap");
    assert!(
        restore.contains("RESTORE ARCHIVELOG SEQUENCE BETWEEN 101 AND 102 THREAD 1;"),
        "{restore}"
    );
    for c in &r.checks {
        let text = format!("{} {}", c.detail, c.remediation.as_deref().unwrap_or(""));
        for placeholder in [
            "<from>",
            "<to>",
            "<t>",
            "<n>",
            "<old>",
            "owner.table",
            "..=",
        ] {
            assert!(!text.contains(placeholder), "{}: {text}", c.id);
        }
    }
}

// ---- collect --from-source: the facts preflight reads, written to a file

/// `collect --from-source` of `source` (with `extra` options) into a temp
/// file, then the JSON reports of preflight on the source and on the file.
fn source_and_file_reports(source: &str, extra: &[&str]) -> (JsonReport, JsonReport) {
    let dir = tempfile::tempdir().unwrap();
    let ev = dir.path().join("facts.json");
    let evs = ev.to_str().unwrap();
    let mut collect = vec!["--source", source, "collect", "--from-source", "-o", evs];
    collect.extend(extra);
    let o = cdcctl(&collect);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut live = vec!["--source", source, "preflight"];
    live.extend(extra);
    let file = format!("facts:{evs}");
    let mut off = vec!["--source", file.as_str(), "preflight"];
    off.extend(extra);
    (json_report(&live).0, json_report(&off).0)
}

/// Check id → status, without the live-only smoke mine.
fn statuses(r: &JsonReport) -> BTreeMap<String, String> {
    r.checks
        .iter()
        .filter(|c| c.id != "smoke-mine")
        .map(|c| (c.id.clone(), c.status.clone()))
        .collect()
}

#[test]
fn collect_from_the_simulator_then_preflight_on_the_file_finds_what_the_simulator_does() {
    let cfg = config("debezium-healthy.properties");
    for (source, extra) in [
        ("sim", &[][..]),
        ("sim:demo", &["--table", "APP.ORDERS"][..]),
        ("sim:long-transaction", &[][..]),
        ("sim:interval-partition-churn", &[][..]),
        ("sim:wrong-container", &[][..]),
        ("sim:rac", &["--config", cfg.as_str()][..]),
    ] {
        let (live, file) = source_and_file_reports(source, extra);
        assert!(
            live.checks.len() > 30,
            "{source}: {} checks",
            live.checks.len()
        );
        assert_eq!(statuses(&live), statuses(&file), "{source} {extra:?}");
        // Findings name the same facts, remediation included.
        for (a, b) in live.checks.iter().zip(&file.checks) {
            if a.id != "smoke-mine" {
                assert_eq!(a, b, "{source} {extra:?}");
            }
        }
        assert_eq!(live.source.scope, file.source.scope, "{source}");
    }
}

#[test]
fn the_smoke_mine_of_a_file_is_skipped_with_its_reason_never_passed() {
    let (live, file) = source_and_file_reports("sim", &[]);
    assert_eq!(status_of(&live, "smoke-mine"), "pass");
    let smoke = file
        .checks
        .iter()
        .find(|c| c.id == "smoke-mine")
        .expect("smoke-mine is reported for a file too");
    assert_eq!(smoke.status, "skip");
    assert!(smoke.detail.contains("live source"), "{}", smoke.detail);
}

#[test]
fn collect_from_source_reads_only_the_tables_asked_for_and_refuses_a_name_that_matches_none() {
    let dir = tempfile::tempdir().unwrap();
    let ev = dir.path().join("ev.json");
    let o = cdcctl(&[
        "--source",
        "sim",
        "collect",
        "--from-source",
        "--table",
        "ORDERS",
        "-o",
        ev.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&ev).unwrap()).unwrap();
    let tables: Vec<String> = v["queries"]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            format!(
                "{}.{}",
                t["OWNER"].as_str().unwrap(),
                t["TABLE_NAME"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(tables, vec!["APP.ORDERS".to_string()]);
    let o = cdcctl(&[
        "--source",
        "sim",
        "collect",
        "--from-source",
        "--table",
        "APP.NOPE",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("cdcctl collect: "), "{}", stderr(&o));
}

#[test]
fn collect_config_needs_from_source() {
    let cfg = config("debezium-healthy.properties");
    let o = cdcctl(&["collect", "--config", &cfg]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.starts_with("cdcctl collect: --config needs --from-source"),
        "{e}"
    );
}

#[test]
fn collect_to_dash_writes_stdout_and_no_file_named_dash() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["collect", "-o", "-"][..],
        &["--source", "sim", "collect", "--from-source", "-o", "-"][..],
    ] {
        let o = crate::run::cdcctl(dir.path(), args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert!(!o.stdout.is_empty(), "{args:?}: nothing on stdout");
        assert!(
            !dir.path().join("-").exists(),
            "{args:?} wrote a file named -"
        );
    }
}

#[test]
fn preflight_errors_name_the_command() {
    let o = cdcctl(&["--source", "sim", "preflight", "--table", "APP.NOPE"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    let last = e.trim().lines().last().unwrap_or_default();
    assert!(last.starts_with("cdcctl preflight: "), "{e}");
    let o = cdcctl(&["--source", "sim", "preflight", "--set", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("cdcctl preflight: "),
        "{}",
        stderr(&o)
    );
}

#[test]
fn junit_times_are_measured_not_a_constant() {
    let o = cdcctl(&["--source", "sim", "preflight", "--format", "junit"]);
    let xml = stdout(&o);
    let times: Vec<f64> = xml
        .match_indices(" time=\"")
        .map(|(i, m)| {
            let rest = &xml[i + m.len()..];
            rest[..rest.find('"').unwrap()].parse::<f64>().unwrap()
        })
        .collect();
    assert!(times.len() > 40, "{xml}");
    assert!(times.iter().all(|t| *t >= 0.0));
    let distinct: BTreeSet<String> = times.iter().map(|t| format!("{t:.6}")).collect();
    assert!(distinct.len() > 3, "times look constant: {distinct:?}");
    // The smoke mine reads the database: its case takes measurable time.
    let smoke = xml
        .lines()
        .find(|l| l.contains("name=\"smoke-mine:"))
        .expect("a smoke-mine testcase");
    let t: f64 = smoke
        .split(" time=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .and_then(|t| t.parse().ok())
        .unwrap();
    assert!(t > 0.0, "{smoke}");
}

// ---- remediation written with what the checks found

fn remediation_from(source: &str, extra: &[&str], id: &str) -> String {
    let mut args = vec!["--source", source, "preflight"];
    args.extend(extra);
    let (r, _) = json_report(&args);
    r.checks
        .iter()
        .find(|c| c.id == id)
        .and_then(|c| c.remediation.clone())
        .unwrap_or_else(|| panic!("{source}: {id} has no remediation"))
}

#[test]
fn long_transactions_are_answered_with_the_session_to_kill() {
    let fix = remediation_from("sim:long-transaction", &[], "long-txn");
    assert!(fix.contains("ALTER SYSTEM KILL SESSION '"), "{fix}");
    assert!(
        !fix.contains("sid,serial#"),
        "a placeholder where the SID is known: {fix}"
    );
    let kill = fix
        .lines()
        .find(|l| l.starts_with("ALTER SYSTEM KILL SESSION '"))
        .unwrap();
    let session = kill.split('\'').nth(1).unwrap();
    assert!(
        session.split(',').all(|n| n.parse::<u64>().is_ok()),
        "SID,SERIAL# on a single instance: {kill}"
    );
    // Every transaction counts as old with a zero threshold; on a cluster
    // each kill names the instance its session is on.
    let fix = remediation_from("sim:rac", &["--set", "long-txn.warn=0"], "long-txn");
    let kills: Vec<&str> = fix
        .lines()
        .filter(|l| l.starts_with("ALTER SYSTEM KILL SESSION '"))
        .collect();
    assert!(!kills.is_empty(), "{fix}");
    for k in kills {
        assert!(k.contains(",@1'") || k.contains(",@2'"), "{k}");
    }
}

#[test]
fn smoke_mine_and_container_remediation_follow_what_was_found() {
    let grants = remediation_from("sim:missing-grants", &[], "smoke-mine");
    assert!(grants.contains("ORA-01031"), "{grants}");
    assert!(grants.contains("GRANT LOGMINING TO C##CDCCTL"), "{grants}");
    let container = remediation_from("sim:wrong-container", &[], "smoke-mine");
    assert!(container.contains("CREATE USER C##CDCUSER"), "{container}");
    assert_ne!(grants, container);
    let cdb = remediation_from("sim:wrong-container", &[], "cdb-mining-container");
    assert!(cdb.contains("CREATE USER C##CDCUSER "), "{cdb}");
    assert!(cdb.contains("database.pdb.name = ORCLPDB1"), "{cdb}");
}

#[test]
fn retention_remediation_says_the_days_kept_and_needed() {
    let fix = remediation_from("sim:archive-gap", &[], "arch-retention");
    assert!(fix.contains("archived logs are kept 0.2 h now"), "{fix}");
    assert!(fix.contains("keep at least 3 day(s) (72 h)"), "{fix}");
    let fix = remediation_from(
        "sim:archive-gap",
        &["--set", "arch-retention.warn=168"],
        "arch-retention",
    );
    assert!(fix.contains("keep at least 7 day(s) (168 h)"), "{fix}");
}

// ---- collect --dialect: the DM8 (disql) and YashanDB (yasql) scripts

#[test]
fn collect_dialect_dm_prints_a_disql_script_and_yashandb_a_yasql_script() {
    let o = cdcctl(&["collect", "--dialect", "dm", "--table", "BIZ.%"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let dm = stdout(&o);
    assert!(
        dm.contains("disql") && dm.contains("SET LINESHOW OFF"),
        "{dm}"
    );
    assert!(dm.contains("SPOOL cdcctl-evidence.json REPLACE") && dm.contains("SPOOL OFF"));
    assert!(dm.contains("\"dialect\":\"dm\"") && dm.contains("\"dm_ini\":["));
    assert!(dm.contains("(owner LIKE 'BIZ' AND table_name LIKE '%')"));
    assert!(!dm.to_ascii_lowercase().contains("json_object("));
    let o = cdcctl(&["collect", "--dialect", "yashandb"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let ys = stdout(&o);
    assert!(ys.contains("yasql") && ys.contains("\"dialect\":\"yashandb\""));
    assert!(ys.contains("\"ys_servers\":[") && ys.contains("FROM v$ystream_server"));
    let oracle = stdout(&cdcctl(&["collect"]));
    assert!(oracle.contains("SQL*Plus") && oracle.contains("\"dialect\":\"oracle\""));
    let help = stdout(&cdcctl(&["collect", "--help"]));
    for word in ["--dialect", "disql", "yasql", "SQL*Plus"] {
        assert!(help.contains(word), "{word}: {help}");
    }
}

#[test]
fn collect_dialect_refuses_unknown_values_and_an_oracle_release() {
    let o = cdcctl(&["collect", "--dialect", "mysql"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("oracle") && e.contains("dm") && e.contains("yashandb"),
        "{e}"
    );
    let o = cdcctl(&["collect", "--dialect", "dm", "--oracle-version", "11.2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--oracle-version"), "{}", stderr(&o));
    let o = cdcctl(&["collect", "--dialect", "dm", "--from-source"]);
    assert_eq!(o.status.code(), Some(2));
}

/// The findings of `preflight --evidence` on a file laid out as the
/// disql/yasql script spools it equal those of the live run.
fn collect_spool_evaluates_like(spool: &str, live_facts: &str, extra: &[&str]) {
    let src = facts(live_facts);
    let mut live = vec!["--source", src.as_str(), "preflight"];
    live.extend(extra);
    let ev = fixture(spool);
    let mut off = vec!["preflight", "--evidence", ev.as_str()];
    off.extend(extra);
    let (a, _) = json_report(&live);
    let (b, o) = json_report(&off);
    assert!(!b.checks.is_empty(), "{}", stderr(&o));
    assert_eq!(a.checks, b.checks, "{spool}: evaluates differently");
}

#[test]
fn collect_evidence_spooled_by_disql_evaluates_like_the_dm8_source() {
    collect_spool_evaluates_like(
        "dm8-pk-only-logging.disql-spool.json",
        "dm8-pk-only-logging.json",
        &[],
    );
}

#[test]
fn collect_evidence_spooled_by_yasql_evaluates_like_the_yashandb_source() {
    collect_spool_evaluates_like(
        "yashandb-no-server.yasql-spool.json",
        "yashandb-no-server.json",
        &["--config", &config("seed004-yashandb-cdc.sql")],
    );
}

// ---- YashanDB live through ODBC: what a user sees without it

#[cfg(not(feature = "yashandb-odbc"))]
#[test]
fn yashandb_source_in_a_build_without_odbc_exits_3_with_build_advice() {
    for args in [
        &["--source", "yashandb://cdc@db:1688", "preflight"][..],
        &[
            "--source",
            "yashandb://cdc@db:1688",
            "collect",
            "--from-source",
        ][..],
    ] {
        let o = cdcctl(args);
        assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains("--features yashandb-odbc") && e.contains("unixodbc-dev"),
            "{e}"
        );
    }
}

#[cfg(feature = "yashandb-odbc")]
#[test]
fn yashandb_source_without_its_odbc_driver_exits_3_with_install_advice() {
    let o = Command::new(env!("CARGO_BIN_EXE_cdcctl"))
        .args(["--source", "yashandb://cdc@127.0.0.1:1688", "preflight"])
        .env("CDCCTL_PASSWORD", "x")
        .env("CDCCTL_YASHANDB_ODBC_DRIVER", "cdcctl-test-no-such-driver")
        .output()
        .expect("the cdcctl binary runs");
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("[Driver Manager]"), "{e}");
    assert!(e.contains("install YashanDB's ODBC driver"), "{e}");
}

#[test]
fn yashandb_source_refuses_a_password_in_the_url_and_tail() {
    let o = cdcctl(&["--source", "yashandb://cdc:secret@db:1688", "preflight"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!stderr(&o).contains("secret"), "{}", stderr(&o));
    let o = cdcctl(&["--source", "yashandb://cdc@db:1688", "tail", "APP.T"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("YashanDB"), "{}", stderr(&o));
}

#[test]
fn a_dmdsc_cluster_fails_dm_topology_ddl_issue34() {
    let dir = tempfile::tempdir().expect("tempdir");
    // The dm8 built-in on two DSC nodes.
    let path = dir.path().join("dsc.toml");
    let dsc = cdcctl::source::sim::BUILTINS
        .iter()
        .filter(|b| b.name == "dm8")
        .map(|b| {
            b.text
                .replacen("mpp = false", "mpp = false\ndsc_nodes = 2", 1)
        })
        .next();
    std::fs::write(&path, dsc.expect("dm8")).expect("write");
    let (r, o) = json_report(&["--source", &format!("sim:{}", path.display()), "preflight"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let got = findings(&r);
    assert!(
        got.contains(&("dm-topology-ddl".to_string(), "fail".to_string())),
        "{got:?}"
    );
}

/// Position of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in:\n{text}"))
}

#[test]
fn issue36_advice_pastes_as_written_container_switches_common_profile_rman_blocks() {
    let (r, _) = json_report(&["--source", "sim:missing-grants", "preflight"]);
    for id in ["priv-scope", "flashback-probe"] {
        let fix = remediation_of(&r, id);
        let grant = line_of(&fix, "ON APP.ORDERS TO C##CDCCTL");
        assert!(
            grant > 0
                && fix.lines().nth(grant - 1) == Some("ALTER SESSION SET CONTAINER = ORCLPDB1;"),
            "{id}: the grant on a PDB's table runs in the PDB:\n{fix}"
        );
        assert!(
            fix.lines()
                .any(|l| l == "ALTER SESSION SET CONTAINER = CDB$ROOT;"),
            "{id}: and the session goes back to the root:\n{fix}"
        );
    }
    let sys = remediation_of(&r, "priv-sys");
    assert!(
        !sys.contains("ALTER SESSION"),
        "common grants stay in the root:\n{sys}"
    );
    let profile = remediation_of(&r, "profile");
    assert!(
        profile.contains("CREATE PROFILE C##CDC_PROFILE ")
            && profile.contains("ALTER USER C##CDCCTL PROFILE C##CDC_PROFILE CONTAINER=ALL;"),
        "a profile made in CDB$ROOT is common (ORA-65140 without C##):\n{profile}"
    );

    let (r, _) = json_report(&["--source", "sim:archive-gap", "preflight"]);
    for c in &r.checks {
        let fix = c.remediation.as_deref().unwrap_or_default();
        assert!(
            !fix.contains("RMAN>"),
            "{}: a prompt in a script:\n{fix}",
            c.id
        );
        for line in fix.lines().filter(|l| !l.trim().is_empty()) {
            let t = line.trim_start();
            assert!(
                t.starts_with("--") || t.ends_with(';') || t.contains(";  --"),
                "{}: a line that is neither a statement nor a comment: {line}",
                c.id
            );
        }
    }

    let (r, _) = json_report(&["--source", "sim:interval-partition-churn", "preflight"]);
    let churn = remediation_of(&r, "part-churn");
    let off = line_of(&churn, "SET INTERVAL ();");
    let add = line_of(
        &churn,
        "ADD PARTITION P_NEXT VALUES LESS THAN (TO_DATE('2025-05-01",
    );
    let back = line_of(&churn, "SET INTERVAL (NUMTOYMINTERVAL(1, 'MONTH'));");
    assert!(
        off < add && add < back,
        "ORA-14760 unless interval is off before ADD PARTITION:\n{churn}"
    );
    let out = cdcctl(&[
        "--source",
        "sim:interval-partition-churn",
        "partitions",
        "APP.ORDER_HIS",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("partitions JSON");
    let statements = v["statements"]
        .as_str()
        .or(v[0]["statements"].as_str())
        .unwrap_or_default();
    assert!(
        line_of(statements, "SET INTERVAL ();") < line_of(statements, "ADD PARTITION"),
        "{v}"
    );
}
