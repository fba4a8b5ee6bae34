//! SQL_REDO forms real databases print beyond the basic ones (table
//! aliases, timestamp variants, native JSON, unescaped quotes), each through
//! `redo parse --csv` (the V$LOGMNR_CONTENTS reader) and `redo replay` (the
//! engine's transaction buffer).

use serde_json::{json, Value};

use super::redo_parse::{cdcctl, lines};

fn csv_cell(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// One transaction holding `dml` (operation code, SQL_REDO) rows, as a
/// V$LOGMNR_CONTENTS export.
fn contents(dml: &[(u8, &str)]) -> String {
    let mut csv = String::from(
        "SCN,XID,OPERATION_CODE,SEG_OWNER,TABLE_NAME,RS_ID,SSN,CSF,SQL_REDO,STATUS,INFO\n",
    );
    let xid = "0A0014005D3C0000";
    csv.push_str(&format!(
        "100,{xid},6,,,0x01,0,0,set transaction read write;,0,\n"
    ));
    for (i, (op, sql)) in dml.iter().enumerate() {
        csv.push_str(&format!(
            "{},{xid},{op},APP,T,0x{:02x},0,0,{},0,\n",
            101 + i,
            i + 2,
            csv_cell(sql)
        ));
    }
    csv.push_str(&format!(
        "{},{xid},7,,,0xff,0,0,commit;,0,\n",
        101 + dml.len()
    ));
    csv
}

/// `redo parse --csv` of the rows: exit code and the JSON lines.
fn parse_csv(dml: &[(u8, &str)], extra: &[&str]) -> (Option<i32>, Vec<Value>, String) {
    let mut args = vec!["redo", "parse", "--csv"];
    args.extend_from_slice(extra);
    let out = cdcctl(&args, &contents(dml));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), lines(&out), err)
}

/// `redo replay` of the rows: exit code, the envelopes and the summary.
fn replay(dml: &[(u8, &str)], extra: &[&str]) -> (Option<i32>, Vec<Value>, String) {
    let mut args = vec!["redo", "replay", "--csv", "-"];
    args.extend_from_slice(extra);
    let out = cdcctl(&args, &contents(dml));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), lines(&out), err)
}

#[test]
fn table_alias_rows_give_the_same_images_as_unaliased_ones_through_csv_and_replay() {
    let aliased = [
        (
            3,
            r#"update "APP"."T" a set a."NOTE" = 'b' where a."ID" = '1' and a."NOTE" = 'a' and a.ROWID = 'AAAR3sAAEAAAACXAAA';"#,
        ),
        (
            2,
            r#"delete from "APP"."T" a where a."ID" = '1' and a."NOTE" = 'b';"#,
        ),
    ];
    let plain = [
        (
            3,
            r#"update "APP"."T" set "NOTE" = 'b' where "ID" = '1' and "NOTE" = 'a' and ROWID = 'AAAR3sAAEAAAACXAAA';"#,
        ),
        (
            2,
            r#"delete from "APP"."T" where "ID" = '1' and "NOTE" = 'b';"#,
        ),
    ];
    let (code, rows, err) = parse_csv(&aliased, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(rows[0]["before"], json!({"ID": "1", "NOTE": "a"}));
    assert_eq!(rows[0]["after"], json!({"ID": "1", "NOTE": "b"}));
    assert_eq!(rows[1]["before"], json!({"ID": "1", "NOTE": "b"}));
    assert_eq!(rows, parse_csv(&plain, &[]).1);

    let (code, events, err) = replay(&aliased, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(events.len(), 2);
    assert_eq!(events[0]["op"], "u");
    assert_eq!(events[0]["after"], json!({"ID": "1", "NOTE": "b"}));
    assert_eq!(events[1]["op"], "d");
    let (_, plain_events, _) = replay(&plain, &[]);
    let strip = |v: &Vec<Value>| -> Vec<(Value, Value, Value)> {
        v.iter()
            .map(|e| (e["op"].clone(), e["before"].clone(), e["after"].clone()))
            .collect()
    };
    assert_eq!(strip(&events), strip(&plain_events));
}

#[test]
fn timestamp_forms_other_sessions_print_read_through_csv_and_replay() {
    let rows = [(
        1,
        r#"insert into "APP"."T"("ID","TS0","TS3","TZR") values ('1',TO_TIMESTAMP('2020-02-01 00:00:00.'),TO_TIMESTAMP('2020-02-01 00:00:00.125'),TO_TIMESTAMP_TZ('2020-02-01 00:00:00. Europe/Paris'));"#,
    )];
    let want = json!({
        "ID": "1",
        "TS0": "2020-02-01T00:00:00.0",
        "TS3": "2020-02-01T00:00:00.125",
        "TZR": "2020-02-01T00:00:00.0 Europe/Paris",
    });
    let (code, out, err) = parse_csv(&rows, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out[0]["after"], want);
    let (code, events, err) = replay(&rows, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(events[0]["after"], want);
}

#[test]
fn ambiguous_timestamp_stops_replay_naming_the_column_and_format() {
    let rows = [(
        1,
        r#"insert into "APP"."T"("ID","TS") values ('1',TO_TIMESTAMP('01-FEB-20 12.00.00.000000 AM'));"#,
    )];
    let (code, out, _) = parse_csv(&rows, &[]);
    assert_eq!(code, Some(4));
    let msg = out[0]["error"].as_str().unwrap_or_default();
    assert!(
        msg.contains("\"TS\"") && msg.contains("NLS_TIMESTAMP_FORMAT"),
        "{msg}"
    );
    let (code, events, err) = replay(&rows, &[]);
    assert_eq!(code, Some(4));
    assert!(events.is_empty());
    assert!(err.contains("01-FEB-20 12.00.00.000000 AM"), "{err}");
    assert!(err.contains("YYYY-MM-DD HH24:MI:SS[.FF]"), "{err}");
}

/// An OSON vector python-oracledb's encoder wrote: (JSON text, hex).
fn oson_vector(name: &str) -> (String, String) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/oson/vectors.json"
    );
    let all: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("json");
    let v = all["vectors"]
        .as_array()
        .and_then(|a| a.iter().find(|v| v["name"] == name))
        .expect("vector");
    let s = |k: &str| v[k].as_str().expect(k).to_string();
    (s("json"), s("oson"))
}

#[test]
fn redo_parse_and_replay_give_the_json_text_of_binary_oson_without_a_finding() {
    let (text, hex) = oson_vector("nested");
    let update = format!(
        r#"update "APP"."DOCS" set "DOC" = /* JSON */ HEXTORAW('{}') where "ID" = '1';"#,
        hex.to_uppercase()
    );
    let rows = [(3, update.as_str())];
    let (code, out, err) = parse_csv(&rows, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out[0]["after"], json!({"ID": "1", "DOC": text}));
    let none = out[0]["findings"].as_array().is_none_or(Vec::is_empty);
    assert!(none, "{}", out[0]);

    let (code, events, err) = replay(&rows, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(events[0]["after"]["DOC"], json!(text));
    assert!(!err.contains("OSON"), "{err}");
}

#[test]
fn native_json_columns_never_make_a_change_unparseable_through_csv_and_replay() {
    // `ff4a5a0121`: an OSON header cut short, which does not decode.
    let doc_hex: String = r#"{"k":1}"#.bytes().map(|b| format!("{b:02x}")).collect();
    let update = format!(
        r#"update "APP"."DOCS" set "DOC" = /* JSON */ HEXTORAW('ff4a5a0121') where "ID" = '1' and "META" = /* JSON */ HEXTORAW('{doc_hex}');"#
    );
    let rows = [
        (
            1,
            r#"insert into "APP"."DOCS"("ID","DOC","META") values ('1',/* JSON */ EMPTY_BLOB(),NULL);"#,
        ),
        (3, update.as_str()),
    ];
    let (code, out, err) = parse_csv(&rows, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out[0]["after"],
        json!({"ID": "1", "DOC": "__debezium_unavailable_value", "META": null})
    );
    assert_eq!(out[0]["findings"][0]["kind"], "json_undecoded");
    assert_eq!(out[0]["findings"][0]["form"], "unavailable");
    assert_eq!(
        out[1]["after"],
        json!({"ID": "1", "META": "{\"k\":1}", "DOC": "__debezium_unavailable_value"})
    );
    assert_eq!(out[1]["findings"][0]["form"], "oson_hex");

    let (code, events, err) = replay(&rows, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(events.len(), 2);
    assert_eq!(events[1]["after"]["DOC"], "__debezium_unavailable_value");
    assert_eq!(events[1]["before"]["META"], "{\"k\":1}");
    assert!(
        err.contains(
            "APP.DOCS.DOC: native JSON value in binary OSON form that cdcctl could not decode"
        ),
        "{err}"
    );
    assert!(err.contains("findings: 2"), "{err}");
}

#[test]
fn unescaped_quote_is_an_error_at_the_quote_unless_relaxed_quotes_recovers_it() {
    let sql = r#"insert into "APP"."T"("ID","NAME") values ('1','O'Brien');"#;
    let quote = sql.find("O'B").map(|i| i + 1).unwrap_or_default();
    let rows = [(1, sql)];

    let (code, out, _) = parse_csv(&rows, &[]);
    assert_eq!(code, Some(4));
    assert_eq!(out[0]["position"], quote);
    let msg = out[0]["error"].as_str().unwrap_or_default();
    assert!(
        msg.contains("unescaped quote") && msg.ends_with('^'),
        "{msg}"
    );

    let (code, out, err) = parse_csv(&rows, &["--relaxed-quotes"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out[0]["after"], json!({"ID": "1", "NAME": "O'Brien"}));
    assert_eq!(out[0]["findings"][0]["kind"], "unescaped_quote");
    assert_eq!(out[0]["findings"][0]["column"], "NAME");

    let (code, events, err) = replay(&rows, &[]);
    assert_eq!(code, Some(4));
    assert!(events.is_empty());
    assert!(err.contains("unescaped quote"), "{err}");
    let (code, events, err) = replay(&rows, &["--relaxed-quotes"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(events[0]["after"]["NAME"], "O'Brien");
    assert!(
        err.contains("APP.T.NAME: LogMiner did not double a quote"),
        "{err}"
    );
}

#[test]
fn relaxed_quotes_never_truncate_a_value_they_cannot_resolve() {
    // Two columns, four quoted pieces: either boundary could be inside a value.
    let rows = [(
        1,
        r#"insert into "APP"."T"("A","B") values ('p', 'q', 'r', 's');"#,
    )];
    let (code, out, _) = parse_csv(&rows, &["--relaxed-quotes"]);
    assert_eq!(code, Some(4));
    assert!(out[0].get("after").is_none());
    let msg = out[0]["error"].as_str().unwrap_or_default();
    assert!(msg.contains("more than one way"), "{msg}");
    let (code, events, _) = replay(&rows, &["--relaxed-quotes"]);
    assert_eq!(code, Some(4));
    assert!(events.is_empty());
}

#[test]
fn redo_parse_file_dash_reads_standard_input() {
    let sql = "insert into \"A\".\"T\"(\"X\") values ('1');\n";
    let out = cdcctl(&["redo", "parse", "--file", "-"], sql);
    assert_eq!(out.status.code(), Some(0));
    let v = lines(&out);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0]["after"], json!({"X": "1"}));
}

#[test]
fn redo_parse_help_names_every_skipped_and_reported_row_kind() {
    let out = cdcctl(&["redo", "parse", "--help"], "");
    let help = String::from_utf8_lossy(&out.stdout).replace('\n', " ");
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for kind in [
        "INSERT (1)",
        "DELETE (2)",
        "UPDATE (3)",
        "DDL (5)",
        "START (6)",
        "COMMIT (7)",
        "SELECT_LOB_LOCATOR (9)",
        "LOB_WRITE (10)",
        "LOB_TRIM (11)",
        "SELECT_FOR_UPDATE (25)",
        "REPLICATION_MARKER (27)",
        "LOB_ERASE (29)",
        "MISSING_SCN (34)",
        "ROLLBACK (36)",
        "INTERNAL (0)",
        "XML DOC BEGIN/WRITE/END (68/70/71)",
        "extended-string rows (91/92/93)",
        "UNSUPPORTED (255)",
        "STATUS=2",
        "`-` is standard input",
        "--relaxed-quotes",
    ] {
        assert!(help.contains(kind), "help lacks {kind}: {help}");
    }
}

const LOCATOR: &str = "DECLARE \n loc_c CLOB; \n buf_c VARCHAR2(6174); \n loc_b BLOB; \n buf_b RAW(6174); \nBEGIN\n select \"DOC\" into loc_c from \"APP\".\"T\" where \"ID\" = '1' for update;";
const XML_BEGIN: &str = r#"update "APP"."T" a set a."X" = XMLType(:1) where a."ID" = '1';"#;

#[test]
fn redo_parse_counts_lob_and_xml_rows_it_skips_on_standard_error() {
    let rows = [
        (
            1,
            r#"insert into "APP"."T"("ID","DOC") values ('1',EMPTY_CLOB());"#,
        ),
        (9, LOCATOR),
        (
            10,
            " buf_c := 'hello'; \n  dbms_lob.write(loc_c, 5, 1, buf_c);\nEND;",
        ),
        (68, XML_BEGIN),
        (70, "XML_REDO := '<a/>':4"),
    ];
    let (code, out, err) = parse_csv(&rows, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out.len(), 1);
    assert!(err.contains("skipped 1 SEL_LOB_LOCATOR row(s)"), "{err}");
    assert!(err.contains("skipped 1 LOB_WRITE row(s)"), "{err}");
    assert!(err.contains("skipped 1 XML DOC WRITE row(s)"), "{err}");
}

#[test]
fn issue9_redo_parse_reports_a_malformed_xml_row_with_its_raw_text() {
    let rows = [(68, XML_BEGIN), (70, "XML Data")];
    let (code, out, err) = parse_csv(&rows, &[]);
    assert_eq!(code, Some(4), "{err}");
    let errors: Vec<_> = out.iter().filter(|v| v.get("error").is_some()).collect();
    assert_eq!(errors.len(), 1, "{out:?}");
    assert!(errors[0].to_string().contains("XML Data"), "{}", errors[0]);
}

#[test]
fn issue9_replay_lob_capture_reassembles_lob_xml_and_32k_values() {
    let begin_32k = "DECLARE \n TempLob CLOB;\n buf_c VARCHAR2(32767);\n Stmt CLOB;\nBEGIN\n DBMS_LOB.CreateTemporary(TempLob, FALSE);\n Stmt := 'update \"APP\".\"T\" a set a.\"NOTES\" = :NOTES where a.\"ID\" = ''1'';';";
    let rows = [
        (
            1,
            r#"insert into "APP"."T"("ID","DOC") values ('1',EMPTY_CLOB());"#,
        ),
        (9, LOCATOR),
        (
            10,
            " buf_c := 'hel'; \n  dbms_lob.write(loc_c, 3, 1, buf_c);\nEND;",
        ),
        (
            10,
            " buf_c := 'lo'; \n  dbms_lob.write(loc_c, 2, 4, buf_c);\nEND;",
        ),
        (68, XML_BEGIN),
        (70, "XML_REDO := '<a>':3"),
        (70, "XML_REDO := HEXTORAW('3c2f613e'):4"),
        (71, ""),
        (91, begin_32k),
        (92, " buf_c := 'long ';"),
        (92, " buf_c := 'text';"),
        (93, ""),
    ];
    let (code, events, err) = replay(&rows, &["--lob", "capture"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(
        events[0]["after"],
        json!({"ID": "1", "DOC": "hello", "X": "<a></a>", "NOTES": "long text"})
    );
    // The default placeholder: LOB and XML unavailable (one finding each),
    // the extended string still whole.
    let (code, events, err) = replay(&rows, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        events[0]["after"],
        json!({"ID": "1", "DOC": "__debezium_unavailable_value", "X": "__debezium_unavailable_value", "NOTES": "long text"})
    );
    assert!(err.contains("findings: 2"), "{err}");
}

#[test]
fn issue9_replay_stops_on_a_malformed_lob_row_or_dead_letters_it() {
    let rows = [
        (
            1,
            r#"insert into "APP"."T"("ID","DOC") values ('1',EMPTY_CLOB());"#,
        ),
        (10, " buf_c := 'x'; dbms_lob.write(loc_c, 1, 1, buf_c);"),
    ];
    let (code, _, err) = replay(&rows, &["--lob", "capture"]);
    assert_eq!(code, Some(4), "{err}");
    assert!(
        err.contains("no locator") && err.contains("dbms_lob.write(loc_c, 1, 1, buf_c)"),
        "{err}"
    );
    let (code, events, err) = replay(&rows, &["--lob", "capture", "--on-parse-error", "warn"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(events.len(), 1);
    assert!(err.contains("dead letter"), "{err}");
}

#[test]
fn replay_decodes_hextoraw_character_data_with_the_dictionary_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dict = dir.path().join("dictionary.json");
    std::fs::write(
        &dict,
        r#"{"charset": "ZHS16GBK", "nchar_charset": "AL16UTF16",
            "tables": {"APP.T": {"ID": "NUMBER", "NAME": "VARCHAR2(40)", "NNAME": "NVARCHAR2(20)", "TOKEN": "RAW(16)"}}}"#,
    )
    .expect("dictionary written");
    let rows = [(
        1,
        r#"insert into "APP"."T"("ID","NAME","NNAME","TOKEN") values ('1',HEXTORAW('d6d0cec4'),HEXTORAW('4e2d6587'),HEXTORAW('0A0B'));"#,
    )];
    let dict_arg = dict.to_string_lossy().into_owned();
    let (code, events, err) = replay(&rows, &["--dictionary", &dict_arg]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        events[0]["after"],
        json!({"ID": "1", "NAME": "中文", "NNAME": "中文", "TOKEN": "Cgs="})
    );
    assert!(err.contains("findings: 0"), "{err}");

    // Without the dictionary the values stay bytes (base64 by default,
    // hex on request), each column flagged.
    let (code, events, err) = replay(&rows, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(events[0]["after"]["NAME"], "1tDOxA==");
    let (_, events, _) = replay(&rows, &["--binary-handling", "hex"]);
    assert_eq!(events[0]["after"]["NAME"], "d6d0cec4");
    assert!(
        err.contains("APP.T.NAME: LogMiner printed HEXTORAW and the value stays bytes"),
        "{err}"
    );

    std::fs::write(&dict, r#"{"charset": "XX8NOSUCH"}"#).expect("dictionary written");
    let (code, _, err) = replay(&rows, &["--dictionary", &dict_arg]);
    assert_eq!(code, Some(2));
    assert!(err.contains("XX8NOSUCH"), "{err}");
}
