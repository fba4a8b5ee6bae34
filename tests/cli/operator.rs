//! What an operator types and reads: table names resolved the same way by
//! every command, the simulator never mistaken for a database, and the
//! small answers (exit codes, advice, versions) that decide a page at 3 a.m.

use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_cdcctl");

fn cdcctl(args: &[&str]) -> Output {
    cdcctl_env(args, &[])
}

/// Runs the binary with `env` set and CDCCTL_SOURCE otherwise unset, in a
/// fresh temporary directory: a default file name (`cdcctl-checkpoint.json`)
/// can never land in the repository.
fn cdcctl_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let cwd = tempfile::tempdir().expect("tempdir");
    let mut cmd = Command::new(BIN);
    cmd.current_dir(cwd.path())
        .args(args)
        .env_remove("CDCCTL_SOURCE")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    match cmd.output() {
        Ok(o) => o,
        Err(e) => panic!("cannot run {BIN}: {e}"),
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The demo scenario with a second ORDERS in another schema.
fn two_orders_scenario(dir: &std::path::Path) -> String {
    let demo = include_str!("../../src/source/sim/scenarios/demo.toml");
    let extra = r#"
[[tables]]
owner = "SALES"
name = "ORDERS"
pdb = "ORCLPDB1"
supplemental_logging = "all"
rows = 10
weight = 0.5
primary_key = ["ID"]
columns = [{ name = "ID", type = "NUMBER(10)", nullable = false }]
"#;
    // Tables must come before [workload] in the file only for readability;
    // TOML arrays of tables may appear anywhere.
    let path = dir.join("two-orders.toml");
    std::fs::write(&path, format!("{demo}\n{extra}")).expect("write scenario");
    format!("sim:{}", path.display())
}

#[test]
fn a_bare_table_name_resolves_in_tail_and_the_output_names_the_schema() {
    let out = cdcctl(&[
        "--source",
        "sim",
        "tail",
        "orders",
        "--plain",
        "--count",
        "3",
        "--lag-every",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(lines.len(), 3);
    assert!(
        lines
            .iter()
            .all(|v| v["source"]["schema"] == "APP" && v["source"]["table"] == "ORDERS"),
        "{text}"
    );
}

/// Runs `tail`, `partitions`, `preflight --table` and `run` (into a temp
/// dir) on `source` with `table` (`partitions` and `run` get `qualified`);
/// each must exit 2 with stderr satisfying `says`, and capture nothing.
fn every_command_refuses(source: &str, table: &str, qualified: &str, says: impl Fn(&str) -> bool) {
    let dir = tempfile::tempdir().expect("tempdir");
    let cp = dir.path().join("cp.json");
    let out_file = dir.path().join("out.jsonl");
    let cp_s = cp.to_str().expect("utf-8 path");
    let out_s = out_file.to_str().expect("utf-8 path");
    let runs: Vec<Vec<&str>> = vec![
        vec!["--source", source, "tail", table, "--plain", "--count", "1"],
        vec!["--source", source, "partitions", qualified],
        vec!["--source", source, "preflight", "--table", table],
        vec![
            "--source",
            source,
            "run",
            qualified,
            "--count",
            "1",
            "--checkpoint",
            cp_s,
            "--output",
            out_s,
        ],
    ];
    for args in runs {
        let out = cdcctl(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(says(&err), "{args:?}: {err}");
    }
    assert!(
        !cp.exists(),
        "nothing may be captured for a name that resolves to no one table"
    );
}

#[test]
fn a_bare_name_in_several_schemas_exits_2_listing_them_in_every_command() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = two_orders_scenario(dir.path());
    every_command_refuses(&src, "ORDERS", "ORDERS", |err| {
        err.contains("APP.ORDERS") && err.contains("SALES.ORDERS")
    });
}

#[test]
fn a_name_that_matches_nothing_exits_2_with_did_you_mean_in_every_command() {
    every_command_refuses("sim", "ORDRS", "APP.ORDRS", |err| {
        err.contains("did you mean APP.ORDERS?")
    });
}

#[test]
fn issue11_did_you_mean_is_one_sentence_ending_in_the_question() {
    let o = cdcctl(&["--source", "sim", "tail", "ORDRS", "--plain"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    let line = err
        .lines()
        .find(|l| l.contains("no table matches"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        line.ends_with(
            "no table matches `ORDRS` (names are upper case unless written in double quotes): \
             did you mean APP.ORDERS?"
        ),
        "{line}"
    );
    assert!(!line.contains("?;"), "{line}");
}

#[test]
fn preflight_for_a_table_that_does_not_exist_is_never_green() {
    for format in ["human", "json", "junit"] {
        let out = cdcctl(&[
            "--source",
            "sim",
            "preflight",
            "--table",
            "APP.NOPE",
            "--format",
            format,
        ]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{format}: {err}");
        assert!(err.contains("no table matches `APP.NOPE`"), "{err}");
        // The machine formats report the error (issue 36), never a green run.
        let report = String::from_utf8_lossy(&out.stdout);
        match format {
            "json" => {
                let v: serde_json::Value = serde_json::from_str(&report).expect("JSON");
                assert_eq!(v["exit_code"], 2, "{v}");
                assert!(
                    v["error"].as_str().is_some_and(|e| e.contains("APP.NOPE")),
                    "{v}"
                );
                assert!(v.get("checks").is_none(), "{v}");
            }
            "junit" => assert!(
                report.contains("errors=\"1\"") && report.contains("<error type=\"exit 2\""),
                "{report}"
            ),
            _ => assert!(report.is_empty(), "{format}: a report was printed"),
        }
    }
}

#[test]
fn a_run_refused_for_an_unknown_table_leaves_no_files_behind() {
    let dir = tempfile::tempdir().expect("tempdir");
    let refused = || {
        let out = crate::run::cdcctl(
            dir.path(),
            &["--source", "sim", "run", "APP.NOPE", "-o", "x.jsonl"],
        );
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains("no table matches `APP.NOPE`"));
    };
    refused();
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .expect("read dir")
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    // What was there before a refused run stays.
    std::fs::write(dir.path().join("x.jsonl"), "kept\n").expect("write");
    refused();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("x.jsonl")).expect("read"),
        "kept\n"
    );
}

#[test]
fn run_without_an_explicit_source_refuses_to_capture_the_simulator() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cp = dir.path().join("cp.json");
    let out_file = dir.path().join("out.jsonl");
    let common = [
        "APP.ORDERS",
        "--count",
        "1",
        "--checkpoint",
        cp.to_str().expect("utf-8 path"),
        "--output",
        out_file.to_str().expect("utf-8 path"),
    ];
    let out = cdcctl(&[&["run"][..], &common[..]].concat());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("no --source given"), "{err}");
    assert!(!cp.exists() && !out_file.exists(), "nothing may be written");

    // The environment counts as explicit, like the flag.
    let out = cdcctl_env(
        &[&["run"][..], &common[..]].concat(),
        &[("CDCCTL_SOURCE", "sim:demo?clock=virtual")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(cp.exists());
}

#[test]
fn human_commands_on_the_simulator_say_so_once_on_stderr() {
    let out = cdcctl(&["preflight"]);
    let err = stderr(&out);
    let notice: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("built-in simulator"))
        .collect();
    assert_eq!(notice.len(), 1, "{err}");
    assert!(notice[0].contains("scenario demo"), "{err}");
    assert!(notice[0].contains("--source oracle://"), "{err}");

    let out = cdcctl(&[
        "--source",
        "sim:fra-nearly-full",
        "partitions",
        "APP.ORDER_HIS",
    ]);
    assert!(
        stderr(&out).contains("scenario fra-nearly-full"),
        "{}",
        stderr(&out)
    );
    // Machine formats stay clean, and -q asks for errors only.
    for args in [
        &["preflight", "--format", "json"][..],
        &["-q", "partitions", "APP.ORDER_HIS"][..],
    ] {
        let out = cdcctl(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(
            !stderr(&out).contains("built-in simulator"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

fn check_status(json: &serde_json::Value, id: &str) -> String {
    json["checks"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["id"] == id))
        .and_then(|c| c["status"].as_str())
        .unwrap_or("absent")
        .to_string()
}

fn preflight_json(args: &[&str]) -> (serde_json::Value, Output) {
    let mut a = args.to_vec();
    a.extend(["--format", "json"]);
    let out = cdcctl(&a);
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", stderr(&out)));
    (v, out)
}

#[test]
fn preflight_junit_carries_the_attributes_ci_reads_and_shows_warnings() {
    let out = cdcctl(&["--source", "sim:demo", "preflight", "--format", "junit"]);
    let xml = String::from_utf8_lossy(&out.stdout);
    for attr in ["errors=\"0\"", " time=\"", "timestamp=\"", "hostname=\""] {
        assert!(
            xml.lines()
                .any(|l| l.contains("<testsuite ") && l.contains(attr)),
            "{attr} missing on suites:\n{xml}"
        );
    }
    assert!(
        xml.lines()
            .filter(|l| l.contains("<testcase "))
            .all(|l| l.contains(" time=\"")),
        "{xml}"
    );
    // The demo has warnings: visible, but not failures under --fail-on fail.
    assert!(
        xml.contains("<property name=\"status\" value=\"warn\"/>"),
        "{xml}"
    );
    assert!(xml.contains("<system-out>WARN: "), "{xml}");
    assert!(!xml.contains("<failure"), "{xml}");
    assert_eq!(out.status.code(), Some(0));

    let out = cdcctl(&[
        "--source",
        "sim:demo",
        "preflight",
        "--format",
        "junit",
        "--fail-on",
        "warn",
    ]);
    let xml = String::from_utf8_lossy(&out.stdout);
    assert!(xml.contains("<failure type=\"warn\""), "{xml}");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn preflight_thresholds_are_configurable_by_flag_and_file() {
    // 96% of the recovery area used, nothing reclaimable: FAIL by default.
    let (v, out) = preflight_json(&["--source", "sim:fra-nearly-full", "preflight"]);
    assert_eq!(check_status(&v, "fra-usage"), "fail");
    assert_eq!(out.status.code(), Some(1));

    let (v, _) = preflight_json(&[
        "--source",
        "sim:fra-nearly-full",
        "preflight",
        "--set",
        "fra-usage.fail=99",
    ]);
    assert_eq!(check_status(&v, "fra-usage"), "warn");

    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("thresholds.toml");
    std::fs::write(&file, "[fra-usage]\nfail_pct = 99\nwarn_pct = 97\n").expect("write");
    let (v, _) = preflight_json(&[
        "--source",
        "sim:fra-nearly-full",
        "preflight",
        "--thresholds",
        file.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(check_status(&v, "fra-usage"), "pass");

    for (set, says) in [
        ("fra-usag.fail=90", "did you mean fra-usage?"),
        ("fra-usage.fial=90", "did you mean fail_pct?"),
        ("fra-usage.fail=lots", "give a number"),
        ("fra-usage", "CHECK.KEY=VALUE"),
        (
            "fra-usage.warn=99",
            "fra-usage: warn_pct = 99 is past fail_pct = 95, so the check could never warn",
        ),
        (
            "arch-retention.warn_hours=10",
            "warn_hours = 10 is past fail_hours = 24",
        ),
    ] {
        let out = cdcctl(&["--source", "sim:fra-nearly-full", "preflight", "--set", set]);
        assert_eq!(out.status.code(), Some(2), "{set}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{set}: {}", stderr(&out));
    }
}

#[test]
fn ora_01555_already_recorded_in_undostat_fails_preflight() {
    let (v, out) = preflight_json(&["--source", "sim:undo-too-small", "preflight"]);
    assert_eq!(check_status(&v, "undo-vs-snapshot"), "fail");
    let detail = v["checks"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["id"] == "undo-vs-snapshot"))
        .map(|c| c["detail"].to_string())
        .unwrap_or_default();
    assert!(detail.contains("ORA-01555"), "{detail}");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn preflight_quiet_shows_only_warnings_and_failures_with_the_full_summary() {
    let out = cdcctl(&["--source", "sim:fra-nearly-full", "preflight", "--quiet"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("FAIL") && text.contains("fra-usage"),
        "{text}"
    );
    assert!(!text.contains(" PASS "), "{text}");
    assert!(!text.contains("archivelog-mode"), "{text}");
    let (v, _) = preflight_json(&["--source", "sim:fra-nearly-full", "preflight"]);
    let total = v["checks"].as_array().map_or(0, Vec::len);
    assert!(text.contains(&format!("{total} checks: ")), "{text}");
}

#[test]
fn operator_text_has_no_rust_range_syntax() {
    for scenario in [
        "sim:archive-gap",
        "sim:demo",
        "sim:interval-partition-churn",
    ] {
        let out = cdcctl(&["--source", scenario, "preflight"]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains("..="), "{scenario}:\n{text}");
    }
    let (v, _) = preflight_json(&["--source", "sim:archive-gap", "preflight"]);
    let arch = v["checks"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["id"] == "arch-gap"))
        .map(|c| c.to_string())
        .unwrap_or_default();
    assert!(arch.contains("sequences ") && arch.contains('–'), "{arch}");
}

#[test]
fn run_and_tail_stopped_by_an_archive_gap_name_the_sequences_and_the_rman_command() {
    for args in [
        &[
            "--source",
            "sim:archive-gap",
            "run",
            "APP.ORDERS",
            "-o",
            "o.jsonl",
            "--checkpoint",
            "cp.json",
            "--from-scn",
            "12999999",
        ][..],
        &[
            "--source",
            "sim:archive-gap",
            "tail",
            "ORDERS",
            "--since",
            "9m",
            "--plain",
        ][..],
    ] {
        let out = cdcctl(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(4), "{args:?}: {err}");
        assert!(
            err.contains("archive gap on thread 1: sequences 101–102"),
            "{args:?}: {err}"
        );
        assert!(
            err.contains("RMAN> RESTORE ARCHIVELOG SEQUENCE BETWEEN 101 AND 102 THREAD 1;"),
            "{args:?}: {err}"
        );
        assert!(!err.contains(".."), "{args:?}: {err}");
    }
}

/// Without an Oracle client library the install advice is printed once,
/// by preflight and by tail alike. (Where a client library is installed the
/// error is another one, and nothing here applies.)
#[test]
fn a_missing_oracle_client_library_is_explained_once() {
    for args in [
        &["--source", "oracle://u@127.0.0.1:1/X", "preflight"][..],
        &[
            "--source",
            "oracle://u@127.0.0.1:1/X",
            "tail",
            "ORDERS",
            "--plain",
        ][..],
    ] {
        let out = cdcctl_env(args, &[("CDCCTL_PASSWORD", "x")]);
        let err = stderr(&out);
        if !err.contains("cannot load the Oracle client library") {
            eprintln!("skipped: an Oracle client library is installed ({err})");
            return;
        }
        assert_eq!(out.status.code(), Some(3), "{args:?}: {err}");
        assert_eq!(err.matches("Instant Client").count(), 1, "{args:?}: {err}");
        assert_eq!(err.matches("--source sim").count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn check_ids_are_found_ignoring_case_and_typos_get_suggestions() {
    let out = cdcctl(&["preflight", "--explain", "FRA-USAGE"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("fra-usage — "));
    let out = cdcctl(&["preflight", "--explain", "fra-usge"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("did you mean fra-usage?"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn since_beyond_the_oldest_log_exits_2_naming_the_oldest_time() {
    let out = cdcctl(&[
        "--source",
        "sim",
        "tail",
        "APP.ORDERS",
        "--since",
        "30d",
        "--plain",
        "--count",
        "1",
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the oldest available log starts at 2025-03-01"),
        "{err}"
    );
    assert!(!err.contains("RMAN"), "nothing to restore: {err}");
}

/// Starts `args`, reads one line of stdout, closes the pipe, and returns
/// the exit code and stderr.
fn close_after_one_line(args: &[&str]) -> (Option<i32>, String) {
    use std::io::{BufRead, BufReader, Read};
    let mut child = Command::new(BIN)
        .args(args)
        .env_remove("CDCCTL_SOURCE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {BIN}: {e}"));
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    let _ = BufReader::new(stdout).read_line(&mut line);
    // The reader is dropped here: the next write meets a closed pipe.
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    let status = child.wait().expect("wait");
    (status.code(), err)
}

#[test]
fn a_closed_pipe_ends_every_printing_command_with_exit_0() {
    for args in [
        &["sim", "truth", "--count", "20000"][..],
        &["preflight", "--list"][..],
        &["collect"][..],
        &["man"][..],
        &["completions", "bash"][..],
        &[
            "--source",
            "sim:demo?clock=virtual",
            "tail",
            "%.%",
            "--plain",
            "--since",
            "5m",
            "--count",
            "20000",
            "--lag-every",
            "0",
        ][..],
    ] {
        let (code, err) = close_after_one_line(args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // redo replay of a spool bigger than one pipe buffer.
    let dir = tempfile::tempdir().expect("tempdir");
    let csv = dir.path().join("c.csv");
    let contents = cdcctl(&[
        "sim",
        "contents",
        "--scenario",
        "demo",
        "--from-scn",
        "13000000",
        "--until-scn",
        "13002000",
    ]);
    std::fs::write(&csv, &contents.stdout).expect("write the spool");
    let csv = csv.display().to_string();
    let (code, err) = close_after_one_line(&["redo", "replay", "--csv", &csv]);
    assert_eq!(code, Some(0), "redo replay: {err}");
    assert!(!err.contains("Broken pipe"), "redo replay: {err}");
}

#[test]
fn run_to_a_closed_pipe_exits_0_with_its_checkpoint_saved() {
    use std::io::{BufRead, BufReader, Read};
    let dir = tempfile::tempdir().expect("tempdir");
    let mut child = Command::new(BIN)
        .current_dir(dir.path())
        .args([
            "--source",
            "sim:demo?clock=virtual",
            "run",
            "APP.ORDERS",
            "--checkpoint",
            "cp.json",
        ])
        .env_remove("CDCCTL_SOURCE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {BIN}: {e}"));
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    let _ = BufReader::new(stdout).read_line(&mut line);
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    let status = child.wait().expect("wait");
    assert!(line.starts_with('{'), "one event was read: {line:?}");
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(
        err.contains("the reader of stdout went away")
            && err.contains("checkpoint saved in cp.json"),
        "{err}"
    );
    assert!(!err.contains("Broken pipe"), "{err}");
    let cp: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("cp.json")).expect("checkpoint written"),
    )
    .expect("checkpoint is JSON");
    assert!(cp["restart_scn"].as_u64().is_some_and(|s| s > 0), "{cp}");
    // The saved checkpoint resumes.
    let out = Command::new(BIN)
        .current_dir(dir.path())
        .args([
            "--source",
            "sim:demo?clock=virtual",
            "run",
            "APP.ORDERS",
            "--checkpoint",
            "cp.json",
            "--count",
            "1",
        ])
        .env_remove("CDCCTL_SOURCE")
        .stdin(Stdio::null())
        .output()
        .expect("run again");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("resuming from cp.json"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn mistyped_scenarios_and_values_get_one_clear_sentence() {
    let out = cdcctl(&[
        "--source",
        "sim:interval-churn",
        "partitions",
        "APP.ORDER_HIS",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("did you mean interval-partition-churn?"),
        "{}",
        stderr(&out)
    );
    for (args, says) in [
        (
            &["tail", "APP.ORDERS", "--from-scn", "abc"][..],
            "--from-scn: `abc` is not an SCN",
        ),
        (
            &["tail", "APP.ORDERS", "--since", "1x"][..],
            "--since: `1x` is not a duration",
        ),
        (
            &["preflight", "--format", "xml"][..],
            "--format: `xml` is not one of human, json, junit",
        ),
        (
            &["preflight", "--formt", "json"][..],
            "cdcctl preflight: unknown option `--formt`; did you mean --format?",
        ),
        (
            &["run", "--out", "x.jsonl"][..],
            "cdcctl run: unknown option `--out`; did you mean --output?",
        ),
        (
            &["preflght"][..],
            "unknown command `preflght`; did you mean preflight?",
        ),
        (
            &["tail", "APP.ORDERS", "--since"][..],
            "--since needs a value: a duration such as 30s",
        ),
        (&["tail"][..], "cdcctl tail: missing <TABLES>"),
        (
            &["tail", "APP.ORDERS", "--count", "abc"][..],
            "--count: `abc` is not a whole number\n",
        ),
        (
            &["tail", "APP.ORDERS", "--from-scn", "-5"][..],
            "cdcctl tail: `-5`: negative numbers are not accepted",
        ),
        (
            &["sim", "truth", "--scenario", "dmeo", "--count", "1"][..],
            "cdcctl sim: unknown scenario `dmeo`: did you mean demo? (`cdcctl sim scenarios` \
             lists the built-in ones; a path to a .toml file also works)",
        ),
        (
            &["tail", "APP.ORDERS", "extra"][..],
            "cdcctl tail: unexpected argument `extra`",
        ),
        (
            &["tail", "APP.ORDERS", "--since", "1h", "--from-scn", "5"][..],
            "cannot be used with --from-scn",
        ),
        (
            &["--source", "sim", "tail", "APP.ORDERS", "--lag-warn"][..],
            "cdcctl tail: --lag-warn needs a value: a duration such as 30s, 10m, 1h or 1h30m\n\
             (see `cdcctl tail --help`)",
        ),
        (
            &["--source"][..],
            "cdcctl: --source needs a value: sim, sim:SCENARIO",
        ),
        (
            &["preflight", "--explain"][..],
            "cdcctl preflight: --explain needs a value: a check id",
        ),
        (
            &["preflight", "--format", "json", "--format", "json"][..],
            "cdcctl preflight: --format was given more than once",
        ),
        (
            &["redo", "parse", "--file"][..],
            "cdcctl redo parse: --file needs a value: the path of a file",
        ),
        (
            &[
                "--source",
                "sim",
                "tail",
                "APP.ORDERS",
                "--from-scn",
                "1",
                "--plain",
            ][..],
            "cdcctl tail: --from-scn 1 is older than the oldest available log, which starts at \
             SCN 13000000",
        ),
    ] {
        let out = cdcctl(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(err.contains(says), "{args:?}: {err}");
        // One sentence (and for the parser's errors a pointer to help):
        // none of clap's raw layout.
        assert!(err.lines().count() <= 2, "{args:?}: {err}");
        for raw in ["error:", "tip:", "Usage:"] {
            assert!(!err.contains(raw), "raw clap text: {err}");
        }
    }
}

#[test]
fn issue14_log_format_json_covers_usage_errors_and_the_simulator_notice() {
    let out = cdcctl(&["--log-format", "json", "tail", "APP.ORDERS", "--lag-warn"]);
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_str(stderr(&out).trim()).expect("one JSON object");
    assert_eq!(v["level"], "ERROR");
    assert_eq!(v["command"], "tail");
    assert!(
        v["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("--lag-warn needs a value")),
        "{v}"
    );
    let out = cdcctl(&[
        "--log-format",
        "json",
        "--source",
        "sim",
        "preflight",
        "--format",
        "human",
    ]);
    let err = stderr(&out);
    let lines: Vec<serde_json::Value> = err
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert!(
        lines.iter().any(|l| l["command"] == "preflight"
            && l["message"]
                .as_str()
                .is_some_and(|m| m.contains("built-in simulator"))),
        "{err}"
    );
}

#[test]
fn issue35_log_format_json_gives_an_errors_advice_its_own_member() {
    let out = cdcctl(&[
        "--log-format",
        "json",
        "--source",
        "oracle://cdc@127.0.0.1:1/ORCLPDB1",
        "tail",
        "APP.ORDERS",
        "--plain",
    ]);
    assert_ne!(out.status.code(), Some(0));
    let err = stderr(&out);
    let v: serde_json::Value = serde_json::from_str(err.trim()).expect("one JSON object");
    assert_eq!(v["level"], "ERROR", "{v}");
    let message = v["message"].as_str().unwrap_or_default();
    assert!(
        !message.contains("advice"),
        "advice left in the message: {v}"
    );
    assert!(
        v["advice"]
            .as_str()
            .is_some_and(|a| a.contains("CDCCTL_PASSWORD")),
        "{v}"
    );
}

#[test]
fn verbose_logs_are_time_stamped_and_quiet_or_filters_silence_them() {
    let args = [
        "--source",
        "sim",
        "tail",
        "orders",
        "--plain",
        "--count",
        "1",
        "--lag-every",
        "0",
    ];
    let out = cdcctl(&[&["-v"][..], &args[..]].concat());
    let err = stderr(&out);
    let line = err
        .lines()
        .find(|l| l.contains("tables resolved"))
        .unwrap_or_else(|| panic!("no info line: {err}"));
    // 2026-11-30T21:02:51.493708Z  INFO tables resolved tables=APP.ORDERS
    assert!(
        line.len() > 20 && line.as_bytes()[4] == b'-' && line.as_bytes()[10] == b'T',
        "{line}"
    );
    assert!(
        line.contains("INFO") && line.contains("tables=APP.ORDERS"),
        "{line}"
    );
    let out = cdcctl(&[&["-q"][..], &args[..]].concat());
    assert!(!stderr(&out).contains("INFO"), "{}", stderr(&out));
    let out = cdcctl_env(&args, &[("CDCCTL_LOG", "info")]);
    assert!(stderr(&out).contains("INFO"), "{}", stderr(&out));
}

#[test]
fn completions_man_page_and_version_come_from_the_command_definitions() {
    let out = cdcctl(&["completions", "bash"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(text.contains("cdcctl") && text.contains("preflight") && text.contains("--source"));
    let out = cdcctl(&["completions", "zsh"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("#compdef cdcctl"));
    let out = cdcctl(&["man"]);
    let man = String::from_utf8_lossy(&out.stdout);
    assert!(
        man.contains(".TH cdcctl") && man.contains("preflight"),
        "{man}"
    );
    // Every page it refers to exists: one per command, with its options.
    let out = cdcctl(&["man", "redo", "replay"]);
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(
        page.contains(".TH cdcctl-redo-replay 1") && page.contains("spill\\-mb"),
        "{page}"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let out = cdcctl(&["man", "--out-dir", &dir.path().display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for page in [
        "cdcctl.1",
        "cdcctl-tail.1",
        "cdcctl-run.1",
        "cdcctl-redo-replay.1",
    ] {
        assert!(dir.path().join(page).is_file(), "{page} not written");
    }
    let out = cdcctl(&["man", "tial"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("did you mean tail?"),
        "{}",
        stderr(&out)
    );
    let out = cdcctl(&["--version"]);
    let v = String::from_utf8_lossy(&out.stdout);
    // cdcctl 0.1.0 (4eb72021b786, built 2026-11-30)
    assert!(v.starts_with("cdcctl 0.1.0 ("), "{v}");
    assert!(v.contains(", built 20"), "{v}");
}

#[test]
fn help_and_the_man_page_list_the_exit_codes_issue36() {
    let out = cdcctl(&["--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("Exit codes:"), "{help}");
    let man = String::from_utf8_lossy(&cdcctl(&["man"]).stdout).into_owned();
    for (code, says) in [
        ("0", "healthy, or the command finished"),
        ("1", "findings at or above"),
        ("2", "usage or configuration error"),
        ("3", "source unreachable or authentication failed"),
        ("4", "capture stopped on data it could not trust"),
    ] {
        assert!(
            help.contains(&format!("  {code}  ")) && help.contains(says),
            "{code}: {help}"
        );
        // roff escapes the hyphens of --fail-on; the words stay.
        assert!(man.contains(says), "{code} missing from cdcctl(1): {man}");
    }
}

#[test]
fn redo_replay_takes_run_s_names_and_forms_for_spill_and_abandon() {
    let csv = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/contents.csv");
    let out = cdcctl(&[
        "redo",
        "replay",
        "--csv",
        csv,
        "--spill-mb",
        "1",
        "--abandon-after",
        "4h",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn redo_parse_gives_scns_as_strings_like_the_envelope() {
    let csv = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/contents.csv");
    let out = cdcctl(&["redo", "parse", "--csv", "--file", csv]);
    let text = String::from_utf8_lossy(&out.stdout);
    let first: serde_json::Value = text
        .lines()
        .next()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no JSON line: {text}{}", stderr(&out)));
    assert!(first["scn"].is_string(), "{first}");
}

#[test]
fn a_missing_password_is_said_once_with_its_advice_below_in_every_command() {
    for cmd in [&["preflight"][..], &["tail", "ORDERS", "--plain"][..]] {
        let args = [&["--source", "oracle://app@db:1521/ORCLPDB1"][..], cmd].concat();
        let out = cdcctl_env(&args, &[("CDCCTL_PASSWORD", "")]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{cmd:?}: {err}");
        assert_eq!(err.matches("CDCCTL_PASSWORD").count(), 2, "{cmd:?}: {err}");
        assert_eq!(err.matches("\n  advice: ").count(), 1, "{cmd:?}: {err}");
        assert!(
            err.contains("no password was given for APP"),
            "{cmd:?}: {err}"
        );
    }
}

#[test]
fn preflight_says_how_the_snapshot_reads_a_keyless_table_issue33() {
    let dir = tempfile::tempdir().expect("tempdir");
    let demo = include_str!("../../src/source/sim/scenarios/demo.toml");
    let keyless = r#"
[[tables]]
owner = "APP"
name = "AUDIT_LOG"
pdb = "ORCLPDB1"
supplemental_logging = "all"
rows = 10
weight = 0.2
columns = [{ name = "MSG", type = "VARCHAR2(40)" }]
"#;
    let path = dir.path().join("keyless.toml");
    std::fs::write(&path, format!("{demo}\n{keyless}")).expect("write scenario");
    let source = format!("sim:{}", path.display());
    let (v, out) = preflight_json(&["--source", &source, "preflight", "--table", "APP.%"]);
    let check = v["checks"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["id"] == "tbl-key"))
        .unwrap_or_else(|| panic!("no tbl-key: {}", stderr(&out)));
    let evidence = check["evidence"].to_string();
    assert!(
        evidence.contains("APP.AUDIT_LOG: no key, so the snapshot pages it by ROWID")
            && evidence.contains("one extent (DBA_EXTENTS) per chunk"),
        "{check}"
    );
    assert!(!evidence.contains("APP.ORDERS"), "{check}");
}

/// Issue 36: `partitions` into a pager on a 140-column terminal wrapped
/// the high value at 27 characters; a stdout that is no terminal now takes
/// its width from COLUMNS.
#[test]
fn partitions_table_takes_its_width_from_columns_issue36() {
    let args = [
        "--source",
        "sim:interval-partition-churn",
        "partitions",
        "APP.ORDER_HIS",
    ];
    let o = cdcctl_env(&args, &[("COLUMNS", "140")]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = String::from_utf8_lossy(&o.stdout);
    let row = text
        .lines()
        .find(|l| l.contains("P_202501"))
        .expect("a row for P_202501");
    assert!(row.contains("TO_DATE(' 2025-02-01 00:00:00',"), "{text}");
    let table = text
        .lines()
        .filter(|l| l.starts_with(['│', '┌', '╞', '├', '└']));
    assert!(table.clone().count() > 3, "{text}");
    assert!(table.clone().all(|l| l.chars().count() <= 140), "{text}");
    assert!(table.clone().any(|l| l.chars().count() > 110), "{text}");
}

/// Issue 36: a password never given was reported as "authentication
/// failed" before any attempt to log in.
#[test]
fn a_missing_password_is_not_called_an_authentication_failure_issue36() {
    for source in ["oracle://app@db:1521/ORCLPDB1", "dm://cdc@db:5236"] {
        let out = cdcctl_env(
            &["--source", source, "preflight"],
            &[("CDCCTL_PASSWORD", "")],
        );
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{source}: {err}");
        assert!(!err.contains("authentication failed"), "{source}: {err}");
        assert!(err.contains("no password was given"), "{source}: {err}");
    }
}
