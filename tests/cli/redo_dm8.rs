//! DM8's SQL_REDO through `redo parse` and `redo replay` (issue 37): each
//! form DM8 prints, as a DM8 `V$LOGMNR_CONTENTS` export in
//! tests/fixtures/dm8/, the dialect told by the CSV's header or given, and
//! the `dm8` scenario's export replayed to its ground truth.

use std::path::PathBuf;
use std::process::Output;

use serde_json::{json, Value};

use super::redo_parse::{cdcctl, lines};

fn fixture(name: &str) -> String {
    let p: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "fixtures", "dm8", name]
        .iter()
        .collect();
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `redo parse --csv` of a fixture (dialect from its header): the JSON lines.
fn parsed(name: &str) -> Vec<Value> {
    let out = cdcctl(&["redo", "parse", "--csv"], &fixture(name));
    assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
    lines(&out)
}

/// `redo replay --dialect dm` of a fixture: the envelopes and the summary.
fn replayed(name: &str, extra: &[&str]) -> (Vec<Value>, String) {
    let args = [
        &["redo", "replay", "--csv", "-", "--dialect", "dm"][..],
        extra,
    ]
    .concat();
    let out = cdcctl(&args, &fixture(name));
    assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
    (lines(&out), stderr(&out))
}

fn kinds(findings: &Value) -> Vec<&str> {
    findings
        .as_array()
        .expect("findings is a list")
        .iter()
        .map(|f| f["kind"].as_str().unwrap_or(""))
        .collect()
}

#[test]
fn dm8_upper_case_keywords_values_without_space_and_no_semicolon_give_exact_images_issue37() {
    let rows = parsed("keywords.csv");
    let ops: Vec<&str> = rows.iter().map(|r| r["op"].as_str().unwrap()).collect();
    assert_eq!(ops, ["insert", "update", "delete"]);
    let first = json!({"ID": "1", "C_VARCHAR": "abc", "C_DEC": "1234.5678"});
    let second = json!({"ID": "1", "C_VARCHAR": "abd", "C_DEC": "9999.0001"});
    assert_eq!(
        (&rows[0]["schema"], &rows[0]["table"]),
        (&json!("CDC_TEST"), &json!("T_BASIC"))
    );
    assert_eq!(rows[0]["after"], first);
    assert_eq!((&rows[1]["before"], &rows[1]["after"]), (&first, &second));
    assert_eq!(
        (&rows[2]["before"], &rows[2]["after"]),
        (&second, &Value::Null)
    );
    assert_eq!(rows[1]["scn"], "47773");
    let (events, summary) = replayed("keywords.csv", &[]);
    let ops: Vec<&str> = events.iter().map(|e| e["op"].as_str().unwrap()).collect();
    assert_eq!(ops, ["c", "u", "d"]);
    for e in &events {
        assert_eq!(e["source"]["connector"], "dm");
        // DM8's BINARY(8) XID, `0x000000000000468B`, as the live source
        // reads it, in the lower-case hex of every txId.
        assert_eq!(e["source"]["txId"], "000000000000468b");
    }
    assert_eq!(events[1]["before"], first);
    assert_eq!(events[1]["after"], second);
    assert!(summary.contains("1 transactions committed"), "{summary}");
}

#[test]
fn dm8_unquoted_numbers_and_e_notation_doubles_keep_their_exact_text_issue37() {
    let rows = parsed("numbers.csv");
    let inserted = json!({
        "ID": "1", "C_TINY": "1", "C_BIGINT": "9223372036854775807",
        "C_MIN": "-9223372036854775808", "C_DEC": "1234.5678", "C_NEG": "-1.5",
        "C_DOUBLE": "3.14159E0", "C_BIG_DOUBLE": "-1.617E5", "C_SMALL_DOUBLE": "1E-7"
    });
    assert_eq!(rows[0]["after"], inserted);
    assert_eq!(rows[1]["before"], inserted);
    assert_eq!(rows[1]["after"]["C_DOUBLE"], "2.5E1");
    let (events, _) = replayed("numbers.csv", &[]);
    assert_eq!(events[0]["after"], inserted);
}

#[test]
fn dm8_typed_date_time_and_timestamp_literals_read_to_iso_and_utc_issue37() {
    let rows = parsed("typed_literals.csv");
    let expected = json!({
        "ID": "1",
        "C_DATE": "2026-01-02T00:00:00",
        "C_TIME": "10:20:30",
        "C_TS": "2026-01-02T10:20:30.123456",
        "C_TSTZ": "2026-01-02T02:20:30.123456Z",
        "C_TSTZ_WEST": "2026-01-01T03:30:00Z"
    });
    assert_eq!(rows[0]["after"], expected);
    assert_eq!(rows[0]["findings"], json!([]));
    let (events, _) = replayed("typed_literals.csv", &[]);
    assert_eq!(events[0]["after"]["C_TSTZ"], "2026-01-02T02:20:30.123456Z");
    assert_eq!(events[0]["after"]["C_DATE"], "2026-01-02T00:00:00");
}

#[test]
fn dm8_inline_utf8_text_and_doubled_quotes_are_exact_issue37() {
    let rows = parsed("text.csv");
    assert_eq!(
        rows[0]["after"],
        json!({
            "ID": "1", "C_ZH": "一段中文", "C_QUOTE": "O'Brien 😀",
            "C_SQLISH": "a, b) AND \"X\" = 1", "C_EMPTY": ""
        })
    );
    let (events, _) = replayed("text.csv", &[]);
    assert_eq!(events[0]["after"]["C_ZH"], "一段中文");
}

#[test]
fn dm8_bare_0x_binary_is_bytes_never_undecoded_character_data_issue37() {
    let rows = parsed("binary.csv");
    assert_eq!(
        rows[0]["after"],
        json!({"ID": "1", "C_BLOB": "00010203", "C_BIN": "e4b8ad"})
    );
    assert_eq!(rows[0]["findings"], json!([]));
    let (events, summary) = replayed("binary.csv", &["--binary-handling", "hex"]);
    assert_eq!(events[0]["after"]["C_BLOB"], "00010203");
    assert!(summary.contains("findings: 0"), "{summary}");
}

#[test]
fn dm8_out_clob_bare_and_with_lob_id_is_unavailable_with_lob_not_logged_issue37() {
    let rows = parsed("out_clob.csv");
    let after = &rows[0]["after"];
    assert_eq!(after["C_SHORT"], "short clob");
    assert_eq!(after["C_LONG"], "__debezium_unavailable_value");
    assert_eq!(after["C_PARSED"], "__debezium_unavailable_value");
    assert_eq!(
        kinds(&rows[0]["findings"]),
        ["lob_not_logged", "lob_not_logged"]
    );
    let columns: Vec<&Value> = rows[0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| &f["column"])
        .collect();
    assert_eq!(columns, [&json!("C_LONG"), &json!("C_PARSED")]);
    let (events, summary) = replayed("out_clob.csv", &[]);
    assert_eq!(events[0]["after"]["C_LONG"], "__debezium_unavailable_value");
    assert!(
        summary.contains("DM8 never writes the content"),
        "{summary}"
    );
}

#[test]
fn dm8_where_without_rowid_is_the_whole_before_image_issue37() {
    let rows = parsed("full_where.csv");
    let before = json!({"A": "1", "B": "x", "C": null, "D": "2026-01-02T00:00:00"});
    let after = json!({"A": "1", "B": "y", "C": null, "D": "2026-01-02T00:00:00"});
    assert_eq!((&rows[0]["before"], &rows[0]["after"]), (&before, &after));
    assert_eq!(rows[1]["before"], after);
    // A full image needs no ROWID: nothing is reported missing.
    assert_eq!(rows[0]["findings"], json!([]));
    assert_eq!(rows[1]["findings"], json!([]));
    let (events, _) = replayed("full_where.csv", &[]);
    assert_eq!(events[0]["before"], before);
    assert!(events[0]["source"].get("row_id").is_none_or(Value::is_null));
}

#[test]
fn dm8_ddl_is_its_original_text_with_unquoted_identifiers_issue37() {
    let rows = parsed("ddl.csv");
    let got: Vec<(&Value, &Value, &Value)> = rows
        .iter()
        .map(|r| (&r["op"], &r["table"], &r["sql"]))
        .collect();
    assert_eq!(
        got,
        [
            (
                &json!("ddl"),
                &Value::Null,
                &json!("CREATE SCHEMA CDC_TEST AUTHORIZATION SYSDBA")
            ),
            (
                &json!("ddl"),
                &json!("T_BASIC"),
                &json!("ALTER TABLE CDC_TEST.T_BASIC ADD COLUMN C_NEW VARCHAR(30)")
            ),
            (
                &json!("ddl"),
                &json!("T_DDL_PROBE"),
                &json!("DROP TABLE CDC_TEST.T_DDL_PROBE")
            ),
        ]
    );
    let (events, summary) = replayed("ddl.csv", &[]);
    let ddl: Vec<&str> = events.iter().filter_map(|e| e["ddl"].as_str()).collect();
    assert_eq!(ddl.len(), 3, "{events:?}");
    assert_eq!(
        ddl[1],
        "ALTER TABLE CDC_TEST.T_BASIC ADD COLUMN C_NEW VARCHAR(30)"
    );
    assert!(summary.contains("3 DDL"), "{summary}");
}

#[test]
fn dm8_statement_over_4000_bytes_split_across_rows_is_joined_to_one_change_issue37() {
    let csv = fixture("split.csv");
    assert!(csv.lines().count() > 5, "the statement spans several rows");
    let rows = parsed("split.csv");
    assert_eq!(rows.len(), 1);
    let after = rows[0]["after"].as_object().expect("an insert");
    assert_eq!(after.len(), 30);
    for i in 0..30 {
        let want = format!("第{i}行{}", "达梦数据库".repeat(40));
        assert_eq!(after[&format!("C_{i}")], want.as_str(), "C_{i}");
    }
    let (events, _) = replayed("split.csv", &[]);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["after"], rows[0]["after"]);
}

#[test]
fn dm8_statement_lines_and_ddl_lines_parse_in_line_mode_issue37() {
    let out = cdcctl(
        &["redo", "parse", "--dialect", "dm"],
        &fixture("statements.sql"),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let rows = lines(&out);
    let ops: Vec<&str> = rows.iter().map(|r| r["op"].as_str().unwrap()).collect();
    assert_eq!(ops, ["insert", "update", "ddl", "ddl"]);
    assert_eq!(rows[0]["after"]["C_TSTZ"], "2026-01-02T02:20:30.123456Z");
    assert_eq!(rows[0]["after"]["C_BLOB"], "00010203");
    assert_eq!(rows[1]["after"]["C_VARCHAR"], "改过了");
    assert_eq!(
        rows[2]["sql"],
        "CREATE TABLE CDC_TEST.T_DDL_PROBE (ID INT, NAME VARCHAR(30))"
    );
}

#[test]
fn dm8_header_selects_dm_and_says_so_and_xa_commit_ends_the_transaction_issue37() {
    let csv = fixture("xa_commit.csv");
    let out = cdcctl(&["redo", "replay", "--csv", "-"], &csv);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("reading the CSV as DM8's V$LOGMNR_CONTENTS: its header names `ROLL_BACK`"),
        "{err}"
    );
    let events = lines(&out);
    // BATCH_UPDATE (4) is an UPDATE, XA_COMMIT (38) its commit.
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["op"], "u");
    assert_eq!(events[0]["after"], json!({"ID": "7", "C_VARCHAR": "b"}));
    let parse = cdcctl(&["redo", "parse", "--csv"], &csv);
    assert_eq!(lines(&parse)[0]["op"], "update");
    assert!(stderr(&parse).contains("`ROLL_BACK`"), "{}", stderr(&parse));
}

#[test]
fn explicit_dialect_wins_over_the_header_with_a_warning_issue37() {
    let csv = fixture("xa_commit.csv");
    let out = cdcctl(
        &["redo", "replay", "--csv", "-", "--dialect", "oracle"],
        &csv,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("warning: the CSV's header names `ROLL_BACK`, DM8's rollback flag; reading it as Oracle's"),
        "{err}"
    );
    // Read as Oracle's, 38 ends nothing: the branch stays open, unemitted.
    assert_eq!(lines(&out).len(), 0);
    assert!(err.contains("open transactions: 1"), "{err}");
}

#[test]
fn header_without_a_rollback_flag_reads_as_oracle_without_a_notice_issue37() {
    let csv = fixture("xa_commit.csv").replace(",ROLL_BACK,", ",OTHER,");
    let out = cdcctl(&["redo", "replay", "--csv", "-"], &csv);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("DM8"), "{}", stderr(&out));
    assert_eq!(lines(&out).len(), 0, "38 is no commit to Oracle");
    let out = cdcctl(&["redo", "replay", "--csv", "-", "--dialect", "dm"], &csv);
    assert_eq!(lines(&out).len(), 1, "{}", stderr(&out));
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
}

#[test]
fn dm8_scenario_contents_replayed_with_dialect_dm_equal_its_truth_issue37() {
    let range = ["--from-scn", "39999", "--until-scn", "60000"];
    let (replayed, truth) = crate::sim::replayed_and_truth(
        "dm8",
        &range,
        &["--dialect", "dm", "--db-name", "DAMENG"],
        &[],
    );
    // Thousands of changes: XA branches ending in XA_COMMIT (38), BATCH_UPDATE
    // (4) rows, OUT_CLOB, pieces over 4,000 bytes, every DM8 literal.
    assert!(truth.lines().count() > 3000, "{}", truth.lines().count());
    assert_eq!(replayed, truth);
    // The export is DM8's view, not Oracle's.
    let out = cdcctl(
        &[
            "--source",
            "sim:dm8",
            "sim",
            "contents",
            "--from-scn",
            "39999",
            "--until-scn",
            "45000",
        ],
        "",
    );
    let csv = String::from_utf8(out.stdout).expect("UTF-8");
    let header = csv.lines().next().unwrap_or("");
    assert!(
        header.contains(",ROLL_BACK,") && !header.contains(",ROLLBACK,"),
        "{header}"
    );
    assert!(
        csv.contains(",38,XA_COMMIT,"),
        "an XA branch ends in the range"
    );
    assert!(csv.contains(",0x0000000000004"), "XIDs print as BINARY(8)");
}
