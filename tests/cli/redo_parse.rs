//! `cdcctl redo parse` driven through the real binary: output per literal
//! form, error lines and exit codes, and the V$LOGMNR_CONTENTS CSV path.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

pub(crate) fn cdcctl(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cdcctl"))
        .args(args)
        .env_remove("CDCCTL_SOURCE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the cdcctl binary starts");
    // Written from another thread while the output is read: an input whose
    // output outgrows a pipe would otherwise block both sides.
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let input = stdin.to_string();
    let writer = std::thread::spawn(move || pipe.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("cdcctl finishes");
    match writer.join().expect("the stdin writer finishes") {
        // A command that stops before reading all of it closes the pipe.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => panic!("stdin: {e}"),
        _ => out,
    }
}

pub(crate) fn lines(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .expect("output is UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

#[test]
fn every_literal_form_prints_its_canonical_value() {
    let sql = concat!(
        r#"insert into "APP"."ALL_TYPES"("S","Q","N","NEG","EXP","UN","UNF","D","TS","TZ","R","U","CH","CL","BL","YM","DS","X","NUL") values ("#,
        r#"'a, (b); and c','it''s','123.45','-7','1.0E+30',123,3.14159E0,"#,
        r#"TO_DATE('2025-03-01 09:00:00', 'YYYY-MM-DD HH24:MI:SS'),TO_TIMESTAMP('2025-03-01 09:00:00.123456000'),"#,
        r#"TO_TIMESTAMP_TZ('2025-03-01 09:00:00.123456000 +08:00'),HEXTORAW('0A0B0C'),UNISTR('\4E2D\6587\D83D\DE00'),"#,
        r#"'ab' || UNISTR('\00E9'),EMPTY_CLOB(),EMPTY_BLOB(),TO_YMINTERVAL('+01-02'),"#,
        r#"TO_DSINTERVAL('+01 02:03:04.123456'),Unsupported Type,NULL);"#,
        "\n"
    );
    let out = cdcctl(&["redo", "parse"], sql);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = lines(&out);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0]["op"], "insert");
    assert_eq!(v[0]["schema"], "APP");
    assert_eq!(v[0]["table"], "ALL_TYPES");
    assert_eq!(v[0]["before"], Value::Null);
    assert_eq!(
        v[0]["after"],
        json!({
            "S": "a, (b); and c",
            "Q": "it's",
            "N": "123.45",
            "NEG": "-7",
            "EXP": "1.0E+30",
            "UN": "123",
            "UNF": "3.14159E0",
            "D": "2025-03-01T09:00:00",
            "TS": "2025-03-01T09:00:00.123456000",
            "TZ": "2025-03-01T01:00:00.123456000Z",
            "R": "0a0b0c",
            "U": "中文😀",
            "CH": "abé",
            "CL": "__debezium_unavailable_value",
            "BL": "__debezium_unavailable_value",
            "YM": "+01-02",
            "DS": "+01 02:03:04.123456",
            "X": "__debezium_unavailable_value",
            "NUL": null
        })
    );
    let findings = v[0]["findings"].as_array().expect("findings is an array");
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0]["kind"], "unsupported_type");
    assert_eq!(findings[0]["column"], "X");
}

#[test]
fn update_and_delete_print_before_and_after_images_in_statement_order() {
    let input = concat!(
        r#"update "APP"."ORDERS" set "STATUS" = 'PAID' where "ORDER_ID" = '1001' and "STATUS" = 'NEW' and "NOTE" IS NULL;"#,
        "\n",
        r#"delete from "APP"."ORDERS" where "ORDER_ID" = '1001' and "STATUS" = 'PAID';"#,
        "\n"
    );
    let out = cdcctl(&["redo", "parse"], input);
    assert_eq!(out.status.code(), Some(0));
    let v = lines(&out);
    let keys: Vec<_> = v[0].as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        ["op", "schema", "table", "before", "after", "findings"]
    );
    assert_eq!(
        serde_json::to_string(&v[0]["before"]).unwrap(),
        r#"{"ORDER_ID":"1001","STATUS":"NEW","NOTE":null}"#
    );
    assert_eq!(
        serde_json::to_string(&v[0]["after"]).unwrap(),
        r#"{"ORDER_ID":"1001","STATUS":"PAID","NOTE":null}"#
    );
    assert_eq!(v[1]["op"], "delete");
    assert_eq!(v[1]["after"], Value::Null);
    assert_eq!(v[1]["before"]["STATUS"], "PAID");
}

#[test]
fn bad_statement_prints_an_error_line_continues_and_exits_4() {
    let input = concat!(
        r#"insert into "A"."T"("X") values ('1');"#,
        "\n\n   \n",
        r#"insert into "A"."T"("X") values ('open);"#,
        "\n",
        "commit;\n",
        r#"delete from "A"."T" where "X" = '1';"#,
        "\n"
    );
    let out = cdcctl(&["redo", "parse"], input);
    assert_eq!(out.status.code(), Some(4));
    let v = lines(&out);
    assert_eq!(v.len(), 3, "blank lines and commit; are skipped");
    assert_eq!(v[0]["op"], "insert");
    assert_eq!(v[1]["position"], 33);
    assert_eq!(v[1]["raw"], r#"insert into "A"."T"("X") values ('open);"#);
    assert!(v[1]["error"].as_str().unwrap().contains("never ends"));
    assert_eq!(v[2]["op"], "delete");
}

#[test]
fn partial_before_image_and_dictionary_mismatch_are_findings() {
    let input = concat!(
        r#"update "APP"."ORDERS" set "STATUS" = 'SHIPPED' where "STATUS" = 'PAID' and ROWID = 'AAAR3sAAEAAAACXAAA';"#,
        "\n",
        r#"insert into "UNKNOWN"."OBJ# 74622"("COL 1","COL 2") values (HEXTORAW('c30b0b'),HEXTORAW('4e4557'));"#,
        "\n"
    );
    let out = cdcctl(&["redo", "parse"], input);
    assert_eq!(out.status.code(), Some(0));
    let v = lines(&out);
    assert_eq!(v[0]["findings"][0]["kind"], "partial_before_image");
    assert_eq!(v[0]["findings"][0]["row_id"], "AAAR3sAAEAAAACXAAA");
    assert!(v[0]["before"].get("ROWID").is_none());
    assert_eq!(v[1]["findings"][0]["kind"], "dictionary_mismatch");
    assert_eq!(v[1]["findings"][0]["object_id"], 74622);
}

#[test]
fn csv_input_joins_continuation_pieces_and_reports_positions() {
    let csv = concat!(
        "SCN,XID,OPERATION_CODE,SEG_OWNER,TABLE_NAME,RS_ID,SSN,CSF,SQL_REDO,STATUS,INFO\n",
        "100,0A0014005D3C0000,6,,, 0x000003.00000010.0010 ,0,0,set transaction read write;,0,\n",
        "101,0A0014005D3C0000,1,APP,ORDERS, 0x000003.00000011.0010 ,0,1,\"insert into \"\"APP\"\".\"\"ORD\",0,\n",
        "101,0A0014005D3C0000,1,APP,ORDERS, 0x000003.00000011.0010 ,0,1,\"ERS\"\"(\"\"ID\"\",\"\"NOTE\"\") values ('7','a, b\",0,\n",
        "101,0A0014005D3C0000,1,APP,ORDERS, 0x000003.00000011.0010 ,0,0,\"\nc');\",0,\n",
        "102,0A0014005D3C0000,5,APP,ORDERS, 0x000003.00000012.0010 ,0,0,\"ALTER TABLE \"\"APP\"\".\"\"ORDERS\"\" TRUNCATE PARTITION \"\"P_202501\"\";\",0,\n",
        "103,0A0014005D3C0000,3,APP,DOCS, 0x000003.00000013.0010 ,1,0,Unsupported,2,Unsupported column type\n",
        "104,0A0014005D3C0000,7,,, 0x000003.00000014.0010 ,0,0,commit;,0,\n",
    );
    let out = cdcctl(&["redo", "parse", "--csv"], csv);
    assert_eq!(
        out.status.code(),
        Some(4),
        "the STATUS=2 row cannot be parsed"
    );
    let v = lines(&out);
    assert_eq!(v.len(), 3);
    assert_eq!(v[0]["op"], "insert");
    assert_eq!(v[0]["table"], "ORDERS");
    assert_eq!(v[0]["after"], json!({"ID": "7", "NOTE": "a, b\nc"}));
    assert_eq!(v[0]["scn"], "101");
    assert_eq!(v[0]["rs_id"], " 0x000003.00000011.0010 ");
    assert_eq!(v[0]["ssn"], 0);
    assert_eq!(v[1]["op"], "ddl");
    assert_eq!(v[1]["schema"], "APP");
    assert_eq!(
        v[1]["sql"],
        r#"ALTER TABLE "APP"."ORDERS" TRUNCATE PARTITION "P_202501";"#
    );
    assert_eq!(v[2]["raw"], "Unsupported");
    assert_eq!(v[2]["findings"][0]["kind"], "unreconstructable");
    assert_eq!(v[2]["findings"][0]["info"], "Unsupported column type");
    assert_eq!(v[2]["ssn"], 1);
}

#[test]
fn csv_rows_logminer_could_not_mine_are_errors_and_rollback_rows_are_marked() {
    let csv = concat!(
        "SCN,OPERATION,ROLLBACK,SQL_REDO,CSF\n",
        "1,INSERT,1,\"insert into \"\"A\"\".\"\"T\"\"(\"\"X\"\") values ('1');\",0\n",
        "2,LOB_WRITE,0,\"buf_c := 'x'; dbms_lob.write(loc_c, 1, 1, buf_c);\",0\n",
        "3,UNSUPPORTED,0,Unsupported,0\n",
        "4,MISSING_SCN,0,,0\n",
    );
    let out = cdcctl(&["redo", "parse", "--csv"], csv);
    assert_eq!(out.status.code(), Some(4));
    let v = lines(&out);
    assert_eq!(v.len(), 3);
    assert_eq!(v[0]["rollback"], true);
    assert!(v[1]["error"].as_str().unwrap().contains("UNSUPPORTED"));
    assert_eq!(v[1]["scn"], "3");
    assert!(v[2]["error"].as_str().unwrap().contains("MISSING_SCN"));
}

#[test]
fn ddl_lines_print_as_ddl_in_line_mode() {
    let out = cdcctl(
        &["redo", "parse"],
        "ALTER TABLE \"APP\".\"ORDER_HIS\" TRUNCATE PARTITION \"P_202501\";\n",
    );
    assert_eq!(out.status.code(), Some(0));
    let v = lines(&out);
    assert_eq!(v[0]["op"], "ddl");
    assert_eq!(v[0]["schema"], Value::Null);
    assert!(v[0]["sql"].as_str().unwrap().starts_with("ALTER TABLE"));
}

#[test]
fn csv_without_operation_column_sorts_rows_by_their_text() {
    let csv = "sql_redo,csf\nset transaction read write;,0\n\"insert into \"\"A\"\".\"\"T\"\"(\"\"X\"\") values ('1');\",0\ncommit;,0\n";
    let out = cdcctl(&["redo", "parse", "--csv"], csv);
    assert_eq!(out.status.code(), Some(0));
    let v = lines(&out);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0]["after"]["X"], "1");
    assert!(v[0].get("scn").is_none());
}

#[test]
fn csv_ending_inside_a_continuation_chain_is_a_truncated_statement() {
    let csv = "SCN,SQL_REDO,CSF\n7,\"insert into \"\"A\"\".\"\"T\"\"(\"\"X\"\") \",1\n";
    let out = cdcctl(&["redo", "parse", "--csv"], csv);
    assert_eq!(out.status.code(), Some(4));
    let v = lines(&out);
    assert_eq!(v.len(), 1);
    assert!(v[0]["error"].as_str().unwrap().contains("truncated"));
}

#[test]
fn csv_header_without_csf_is_a_usage_error_on_one_line() {
    let out = cdcctl(&["redo", "parse", "--csv"], "SCN,SQL_REDO\n1,commit;\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("CSF"), "{err}");
}

#[test]
fn csv_row_with_a_bad_cell_stops_with_exit_4_naming_line_and_column() {
    let csv = "SCN,SQL_REDO,CSF\n1,commit;,0\nx,commit;,0\n";
    let out = cdcctl(&["redo", "parse", "--csv"], csv);
    assert_eq!(out.status.code(), Some(4));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 3") && err.contains("SCN"), "{err}");
}

#[test]
fn unreadable_file_is_a_usage_error() {
    let out = cdcctl(
        &["redo", "parse", "--file", "/nonexistent/cdcctl/input.sql"],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/cdcctl/input.sql"), "{err}");
    assert_eq!(err.lines().count(), 1);
}

#[test]
fn example_orders_file_parses_cleanly() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/orders.sql");
    let out = cdcctl(&["redo", "parse", "--file", path], "");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = lines(&out);
    assert!(v.len() >= 5);
    assert!(v.iter().all(|l| l.get("error").is_none()));
}

#[test]
fn example_contents_export_joins_a_4000_byte_break_and_skips_lob_rows() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/contents.csv");
    let out = cdcctl(&["redo", "parse", "--csv", "--file", path], "");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = lines(&out);
    let ops: Vec<_> = v.iter().map(|l| l["op"].as_str().unwrap_or("?")).collect();
    assert_eq!(ops, ["insert", "insert", "update", "update", "ddl"]);
    let note = v[0]["after"]["NOTE"].as_str().unwrap();
    assert!(note.len() > 4000);
    assert!(note.ends_with("gate code 4711. "));
    assert_eq!(v[3]["findings"][0]["kind"], "partial_before_image");
}

#[test]
fn issue15_dm8_statements_parse_and_dm8_garbage_gives_the_raw_row_and_exit_4() {
    let good = concat!(
        r#"UPDATE "CDC_TEST"."T_BASIC" SET "C_VARCHAR" = '改过了' WHERE "ID" = 1 AND "C_VARCHAR" = '一段中文' "#,
        r#"AND "C_DATE" = DATE'2026-01-02' AND "C_TS" = TIMESTAMP'2026-01-02 10:20:30.123456 +08:00' "#,
        r#"AND "C_BLOB" = 0x00010203 AND "C_CLOB" = OUT_CLOB(LOB_ID: 525301) AND "C_N" IS NULL"#
    );
    let garbage = r#"INSERT INTO "S"."T"("A","B") VALUES(1,TIMESTAMP'2026-01-02 25:61:00')"#;
    let out = cdcctl(&["redo", "parse"], &format!("{good}\n{garbage}\n"));
    assert_eq!(out.status.code(), Some(4));
    let l = lines(&out);
    assert_eq!(l.len(), 2, "{l:?}");
    assert_eq!(l[0]["before"]["C_DATE"], json!("2026-01-02T00:00:00"));
    assert_eq!(l[0]["before"]["C_TS"], json!("2026-01-02T02:20:30.123456Z"));
    assert_eq!(l[0]["after"]["C_VARCHAR"], json!("改过了"));
    assert_eq!(l[0]["before"]["C_N"], Value::Null);
    assert_eq!(l[0]["findings"][0]["kind"], json!("lob_not_logged"));
    assert_eq!(l[1]["raw"], json!(garbage));
    let error = l[1]["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("\"B\"") && error.contains("25:61:00"),
        "{error}"
    );
}

/// Statement lines are written straight from the parsed values rather than
/// through a JSON tree: pinned byte for byte, the key order the other lines
/// have (position fields last) and serde_json's escapes included.
#[test]
fn issue12_a_statement_line_is_written_in_the_documented_key_order_byte_for_byte() {
    let csv = concat!(
        "SCN,XID,OPERATION_CODE,SEG_OWNER,TABLE_NAME,RS_ID,SSN,CSF,SQL_REDO,ROLLBACK,STATUS,INFO\n",
        "101,0A0014005D3C0000,3,APP,ORDERS, 0x03.11 ,2,0,\"update \"\"APP\"\".\"\"ORDERS\"\" set \"\"NOTE\"\" = 'tab\there \"\"q\"\" \\' where \"\"ID\"\" = '7' and \"\"D\"\" = TO_DATE('2025-03-01 09:00:00', 'YYYY-MM-DD HH24:MI:SS') and \"\"R\"\" = HEXTORAW('0A0B') and \"\"NOTE\"\" IS NULL;\",1,0,\n",
    );
    let out = cdcctl(&["redo", "parse", "--csv"], csv);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = concat!(
        r#"{"op":"update","schema":"APP","table":"ORDERS","#,
        r#""before":{"ID":"7","D":"2025-03-01T09:00:00","R":"0a0b","NOTE":null},"#,
        r#""after":{"ID":"7","D":"2025-03-01T09:00:00","R":"0a0b","NOTE":"tab\there \"q\" \\"},"#,
        r#""findings":[],"scn":"101","rs_id":" 0x03.11 ","ssn":2,"rollback":true}"#,
        "\n"
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
}

/// An UPDATE's after image repeats the before image's members the SET left
/// alone by copying them from the line: wherever the SET columns fall,
/// one set twice or one the WHERE lacks, the after image is the before
/// image with the SET applied, byte for byte.
#[test]
fn issue12_an_update_after_image_copies_the_members_its_set_left_alone_byte_for_byte() {
    let w = r#"where "A" = 'a''b' and "D" = TO_DATE('2025-03-01 09:00:00', 'YYYY-MM-DD HH24:MI:SS') and "R" = HEXTORAW('0A0B') and "N" IS NULL;"#;
    let before = r#"{"A":"a'b","D":"2025-03-01T09:00:00","R":"0a0b","N":null}"#;
    let cases = [
        (
            r#"set "A" = 'x'"#,
            r#"{"A":"x","D":"2025-03-01T09:00:00","R":"0a0b","N":null}"#,
        ),
        (
            r#"set "R" = HEXTORAW('FF')"#,
            r#"{"A":"a'b","D":"2025-03-01T09:00:00","R":"ff","N":null}"#,
        ),
        (
            r#"set "N" = 'tab	"q"'"#,
            r#"{"A":"a'b","D":"2025-03-01T09:00:00","R":"0a0b","N":"tab\t\"q\""}"#,
        ),
        (
            r#"set "D" = NULL, "A" = 'y'"#,
            r#"{"A":"y","D":null,"R":"0a0b","N":null}"#,
        ),
        (
            r#"set "Z" = '1', "D" = NULL, "Z" = '2'"#,
            r#"{"A":"a'b","D":null,"R":"0a0b","N":null,"Z":"2"}"#,
        ),
        (r#"set "A" = 'a''b'"#, before),
    ];
    let input: String = cases
        .iter()
        .map(|(set, _)| format!("update \"S\".\"T\" {set} {w}\n"))
        .collect();
    let out = cdcctl(&["redo", "parse"], &input);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let got: Vec<&str> = text.lines().collect();
    assert_eq!(got.len(), cases.len());
    for (line, (set, after)) in got.iter().zip(cases) {
        let expected = format!(r#""before":{before},"after":{after},"findings":[]"#);
        assert!(
            line.contains(&expected),
            "{set}:\n{line}\nwants\n{expected}"
        );
    }
}

/// Line mode parses lines where they were read into: a statement longer
/// than one read, lines cut by the end of a read, a last line without a
/// newline and an invalid line among them all come out whole and in order.
#[test]
fn issue12_lines_cut_by_the_end_of_a_read_or_longer_than_one_parse_whole_and_in_order() {
    let long = "x".repeat(700_000);
    let mut input = String::new();
    for i in 0..2_000 {
        input.push_str(&format!(
            "insert into \"A\".\"B\"(\"ID\",\"V\") values ('{i}','{}');\n",
            "y".repeat(i % 300)
        ));
        if i == 1_000 {
            input.push_str(&format!(
                "insert into \"A\".\"B\"(\"ID\",\"V\") values ('long','{long}');\r\n"
            ));
        }
    }
    input.push_str("insert into \"A\".\"B\"(\"ID\") values ('last')");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("long.sql");
    std::fs::write(&path, &input).expect("the input is written");
    let file = path.to_str().expect("a UTF-8 temp path");
    let out = cdcctl(&["redo", "parse", "--file", file], "");
    assert_eq!(out.status.code(), Some(0));
    let v = lines(&out);
    assert_eq!(v.len(), 2_002);
    for (i, line) in v.iter().take(1_001).enumerate() {
        assert_eq!(line["after"]["ID"], i.to_string());
        assert_eq!(line["after"]["V"], "y".repeat(i % 300));
    }
    assert_eq!(v[1_001]["after"]["V"], long.as_str());
    assert_eq!(v[1_002]["after"]["ID"], "1001");
    assert_eq!(v[2_001]["after"]["ID"], "last");
    // Through stdin, read as it arrives, the same lines.
    let piped = cdcctl(&["redo", "parse"], &input);
    assert_eq!(piped.status.code(), Some(0));
    assert!(piped.stdout == out.stdout, "stdin and --file differ");
}

/// A spool made under another session's date format carries the format
/// with each value: the mask makes the value unambiguous, so the row reads
/// to the same ISO values as one made under cdcctl's own session.
#[test]
fn oracle_values_under_their_own_format_mask_read_as_iso_issue37() {
    let sql = concat!(
        r#"insert into "SCOTT"."T_ORDER_LOG"("LOG_ID","ORDER_NO","STATUS","CREATE_TIME","SHIP_TS","PAID_AT") values "#,
        r#"('10086','SO20141110001','SHIPPED',TO_DATE('20141110 21:18:04', 'yyyymmdd hh24:mi:ss'),"#,
        r#"TO_TIMESTAMP('10-NOV-2014 09.18.04.250000 PM', 'DD-MON-YYYY HH.MI.SSXFF AM'),"#,
        r#"TO_TIMESTAMP_TZ('2014/11/10 21:18:04 +08:00', 'YYYY/MM/DD HH24:MI:SS TZH:TZM'));"#,
        "\n"
    );
    let out = cdcctl(&["redo", "parse"], sql);
    let v = lines(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{v:?} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        v[0]["after"],
        json!({
            "LOG_ID": "10086",
            "ORDER_NO": "SO20141110001",
            "STATUS": "SHIPPED",
            "CREATE_TIME": "2014-11-10T21:18:04",
            "SHIP_TS": "2014-11-10T21:18:04.250000",
            "PAID_AT": "2014-11-10T13:18:04Z",
        })
    );
}

/// LogMiner prints character data it cannot convert as `HEXTORAW`: in
/// WE8ISO8859P1, `c5c4d6e5e4f6` is `ÅÄÖåäö`. `--charset` alone takes every
/// such value for text; with a dictionary, RAW columns stay hex.
#[test]
fn hextoraw_character_data_is_text_with_charset_or_dictionary_issue36() {
    let sql = concat!(
        r#"insert into "APP"."NAMES"("NAME","TOKEN") values "#,
        r#"(HEXTORAW('c5c4d6e5e4f6'),HEXTORAW('0a0b'));"#,
        "\n"
    );
    let plain = lines(&cdcctl(&["redo", "parse"], sql));
    assert_eq!(
        plain[0]["after"]["NAME"], "c5c4d6e5e4f6",
        "hex without a charset"
    );

    let out = cdcctl(&["redo", "parse", "--charset", "WE8ISO8859P1"], sql);
    assert_eq!(out.status.code(), Some(0));
    let v = lines(&out);
    assert_eq!(v[0]["after"]["NAME"], "ÅÄÖåäö");

    let dir = tempfile::tempdir().expect("tempdir");
    let dictionary = dir.path().join("dict.json");
    std::fs::write(
        &dictionary,
        r#"{"tables": {"APP.NAMES": {"NAME": "VARCHAR2(20)", "TOKEN": "RAW(2)"}}}"#,
    )
    .expect("write the dictionary");
    let path = dictionary.to_str().expect("a UTF-8 path");
    let args = [
        "redo",
        "parse",
        "--dictionary",
        path,
        "--charset",
        "WE8ISO8859P1",
    ];
    let v = lines(&cdcctl(&args, sql));
    assert_eq!(v[0]["after"]["NAME"], "ÅÄÖåäö");
    assert_eq!(v[0]["after"]["TOKEN"], "0a0b", "a RAW column stays hex");
    assert_eq!(v[0]["findings"], json!([]), "{}", v[0]);

    // The file names no character set and none was given.
    let out = cdcctl(&["redo", "parse", "--dictionary", path], sql);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--charset"), "{stderr}");
    let out = cdcctl(&["redo", "parse", "--charset", "KLINGON8"], sql);
    assert_eq!(out.status.code(), Some(2));
}
