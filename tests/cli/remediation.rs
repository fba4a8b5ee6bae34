//! Preflight's remediation proved on the simulator: for every built-in
//! scenario that warns or fails, `preflight --fix-script` writes the
//! script, the simulator runs it as SQL*Plus would (`sim:NAME?apply=FILE`),
//! and preflight runs again. A check the script addressed must pass, no
//! check may get worse, and every statement the simulator cannot apply and
//! every check it cannot prove fixed is listed below with the reason.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Output;

use serde_json::Value;

/// Statement shapes the simulator does not model, with the scenario they
/// are expected in (`None`: any) and the reason. Every entry must still
/// occur (no stale entry).
const NOT_APPLIED: &[(Option<&str>, &str, &str)] = &[
    (
        None,
        "ALTER DATABASE ADD LOGFILE THREAD",
        "the simulator's redo groups all have the scenario's one size",
    ),
    (
        Some("dm8-no-arch"),
        "ALTER DATABASE ",
        "DM8's MOUNT / ARCHIVELOG / ADD ARCHIVELOG / OPEN: the simulator applies Oracle's statements only",
    ),
    (
        Some("dm8-append-logic-0"),
        "SP_SET_PARA_VALUE(1, 'RLOG_APPEND_LOGIC', 2)",
        "DM8's parameter procedure: the simulator applies Oracle's statements only",
    ),
];

/// Scenarios whose findings are advice only: no statement runs as written.
const ADVICE_ONLY: &[(&str, &str)] = &[(
    "dm8",
    "the key to add must be chosen (ADD PRIMARY KEY (...)) and LOB columns left out by hand",
)];

/// Checks a script addresses that the simulator cannot prove fixed, with
/// the scenario (`None`: any) and the reason.
const NOT_PROVED: &[(Option<&str>, &str, &str)] = &[
    (
        None,
        "redo-size",
        "ADD LOGFILE is not modelled (one size for all groups) and the drops wait for the groups to go INACTIVE",
    ),
    (
        Some("archive-gap"),
        "arch-gap",
        "RMAN-only: the restore runs in RMAN, which the simulator does not run",
    ),
    (
        Some("archive-gap"),
        "arch-files-present",
        "RMAN-only: CROSSCHECK / DELETE EXPIRED run in RMAN",
    ),
    (
        Some("archive-gap"),
        "arch-retention",
        "RMAN-only, and the retention it sets takes days of archiving to reach",
    ),
    (
        Some("dm8-no-arch"),
        "dm-arch",
        "DM8's MOUNT / ARCHIVELOG / ADD ARCHIVELOG are not modelled",
    ),
    (
        Some("dm8-append-logic-0"),
        "dm-logic-log",
        "DM8's SP_SET_PARA_VALUE is not modelled",
    ),
    (
        Some("undo-too-small"),
        "undo-vs-snapshot",
        "needs time: V$UNDOSTAT keeps the ORA-01555 it already recorded after undo_retention is raised",
    ),
    (
        Some("interval-partition-churn"),
        "part-churn",
        "the scenario's past partition DDL (P_202501 exchanged) stays in the dictionary; the script fixes the coming interval partition only",
    ),
];

/// Checks that may get worse after the script, with the reason.
const MAY_GET_WORSE: &[(Option<&str>, &str, &str)] = &[(
    None,
    "tbl-recent-ddl",
    "the fix's own ALTER TABLE (log group, partitions) moves LAST_DDL_TIME: with the online_catalog strategy the check warns for a day after any DDL",
)];

use crate::common::cdcctl;

/// Check id to status, from `--format json`.
fn statuses(o: &Output, what: &str) -> BTreeMap<String, String> {
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{what}: not a JSON report ({e}); stderr: {}",
            String::from_utf8_lossy(&o.stderr)
        )
    });
    v["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .map(|c| {
            (
                c["id"].as_str().expect("id").to_string(),
                c["status"].as_str().expect("status").to_string(),
            )
        })
        .collect()
}

/// The checks with a statement the scripts run: a `-- ==== ID (...)` block
/// with a line that is not a comment, or an RMAN block for the id.
fn addressed(dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (file, comment) in [("fix.sql", "--"), ("fix.sql.rman", "#")] {
        let Ok(text) = std::fs::read_to_string(dir.join(file)) else {
            continue;
        };
        let mut id: Option<String> = None;
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix(&format!("{comment} ==== ")) {
                id = rest.split_whitespace().next().map(str::to_string);
            } else if !line.trim().is_empty()
                && !line.starts_with(comment)
                && !line.starts_with("EXIT")
            {
                if let Some(id) = &id {
                    out.insert(id.clone());
                }
            }
        }
    }
    out
}

fn listed(list: &[(Option<&str>, &str, &str)], scenario: &str, check: &str) -> bool {
    list.iter()
        .any(|(s, c, _)| *c == check && s.is_none_or(|s| s == scenario))
}

fn rank(status: &str) -> u8 {
    match status {
        "fail" => 3,
        "warn" => 2,
        "skip" => 1,
        _ => 0,
    }
}

#[test]
fn issue36_every_scenarios_fix_script_applied_to_the_simulator_fixes_its_checks() {
    let mut problems = Vec::new();
    let mut shapes_used = BTreeSet::new();
    let mut scenarios_tried = 0;
    for b in cdcctl::source::sim::BUILTINS {
        let name = b.name;
        let dir = tempfile::tempdir().expect("tempdir");
        let script = dir.path().join("fix.sql");
        let script_arg = script.to_str().expect("a UTF-8 temp path");
        let source = format!("sim:{name}");
        let o = cdcctl(&[
            "--source",
            &source,
            "preflight",
            "--format",
            "json",
            "--fix-script",
            script_arg,
        ]);
        let before = statuses(&o, name);
        if !before.values().any(|s| s == "warn" || s == "fail") {
            continue;
        }
        scenarios_tried += 1;
        let fixed = addressed(dir.path());
        let advice_only = ADVICE_ONLY.iter().any(|(s, _)| *s == name);
        assert_eq!(
            fixed.is_empty(),
            advice_only,
            "{name}: statements for {fixed:?}; ADVICE_ONLY lists it: {advice_only}"
        );
        let applied = format!("sim:{name}?apply={script_arg}");
        let o = cdcctl(&["--source", &applied, "preflight", "--format", "json"]);
        let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
        if o.status.code() == Some(2) {
            problems.push(format!(
                "{name}: the script fails on the simulator: {stderr}"
            ));
            continue;
        }
        for line in stderr.lines() {
            let Some(stmt) = line.split_once("not applied (not modelled): ").map(|x| x.1) else {
                continue;
            };
            let expected = NOT_APPLIED
                .iter()
                .find(|(s, shape, _)| s.is_none_or(|s| s == name) && stmt.starts_with(shape));
            match expected {
                Some((_, shape, _)) => {
                    shapes_used.insert(*shape);
                }
                None => problems.push(format!("{name}: not applied, not listed: {stmt}")),
            }
        }
        let after = statuses(&o, name);
        for (check, was) in &before {
            let now = after.get(check).map_or("missing", String::as_str);
            if fixed.contains(check) && now != "pass" && !listed(NOT_PROVED, name, check) {
                problems.push(format!(
                    "{name}: {check} was {was}, the script ran its fix, and it is {now}"
                ));
            }
            if rank(now) > rank(was) && !listed(MAY_GET_WORSE, name, check) {
                problems.push(format!("{name}: {check} got worse: {was} -> {now}"));
            }
        }
    }
    assert!(
        scenarios_tried >= 10,
        "only {scenarios_tried} scenarios warn or fail"
    );
    for (_, shape, _) in NOT_APPLIED {
        if !shapes_used.contains(shape) {
            problems.push(format!(
                "NOT_APPLIED lists `{shape}`, which no script left unapplied"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn fix_script_says_where_it_wrote_and_puts_rman_steps_in_their_own_file_issue36() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("fix.sql");
    let path = script.to_str().expect("a UTF-8 temp path");
    let o = cdcctl(&[
        "--source",
        "sim:archive-gap",
        "preflight",
        "-q",
        "--fix-script",
        path,
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "the report's exit code, as without the option"
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains(&format!("to {path} for 5 checks"))
            && stderr.contains(&format!("2 statements for RMAN to {path}.rman")),
        "{stderr}"
    );
    let sql = std::fs::read_to_string(&script).expect("the script");
    let rman = std::fs::read_to_string(format!("{path}.rman")).expect("the RMAN script");
    assert!(
        sql.starts_with("-- cdcctl preflight remediation for sim:archive-gap"),
        "{sql}"
    );
    assert!(sql.contains("\nWHENEVER SQLERROR EXIT FAILURE\n"), "{sql}");
    assert!(
        sql.contains("-- ==== arch-gap (fail): thread 1: sequences 101–102 missing\n"),
        "{sql}"
    );
    assert!(
        sql.contains("-- exec rdsadmin.rdsadmin_util.set_configuration"),
        "{sql}"
    );
    assert!(!sql.contains("\nRESTORE ARCHIVELOG"), "{sql}");
    assert!(rman.contains("# ==== arch-gap (fail)"), "{rman}");
    assert!(
        rman.contains("\nRESTORE ARCHIVELOG SEQUENCE BETWEEN 101 AND 102 THREAD 1;\n"),
        "{rman}"
    );
    assert!(
        rman.contains("\n# review, then run by hand: DELETE NOPROMPT EXPIRED ARCHIVELOG ALL;\n"),
        "a deletion is not run blind: {rman}"
    );
    assert!(!rman.contains("\n--"), "RMAN comments are #: {rman}");
}

#[test]
fn fix_script_that_cannot_be_written_exits_2_and_names_the_file_issue36() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("no-such-dir").join("fix.sql");
    let path = script.to_str().expect("a UTF-8 temp path");
    let o = cdcctl(&[
        "--source",
        "sim:demo",
        "preflight",
        "-q",
        "--fix-script",
        path,
    ]);
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains(&format!(
            "cannot write the fix script {path}: No such file or directory"
        )),
        "{stderr}"
    );
}

#[test]
fn a_script_that_fails_on_the_simulator_stops_the_source_with_the_oracle_error_issue36() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("bad.sql");
    std::fs::write(
        &script,
        "WHENEVER SQLERROR EXIT FAILURE\nGRANT SELECT ON APP.ORDERS TO C##CDCCTL;\n",
    )
    .expect("write the script");
    let source = format!("sim:missing-grants?apply={}", script.display());
    let o = cdcctl(&["--source", &source, "preflight", "-q"]);
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains(
            "bad.sql:2: ORA-00942: table or view does not exist (APP.ORDERS in CDB$ROOT)"
        ),
        "{stderr}"
    );
}
