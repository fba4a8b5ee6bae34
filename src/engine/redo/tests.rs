use proptest::prelude::*;

use super::*;
use crate::engine::event::Field;

fn text(s: &str) -> Field {
    Field::text(s)
}

fn after(sql: &str) -> Image {
    parse(sql).unwrap().after_image().unwrap()
}

/// The canonical value of a one-column insert.
fn one(literal: &str) -> Field {
    let sql = format!(r#"insert into "APP"."T"("C") values ({literal});"#);
    let image = after(&sql);
    assert_eq!(image.len(), 1);
    image.to_vec()[0].1.clone()
}

const INSERT: &str = r#"insert into "APP"."ORDERS"("ORDER_ID","STATUS","AMOUNT","ORDER_DATE","NOTE") values ('1001','NEW','99.5',TO_DATE('2025-03-01 09:00:00', 'YYYY-MM-DD HH24:MI:SS'),NULL);"#;
const UPDATE: &str = r#"update "APP"."ORDERS" set "STATUS" = 'PAID', "NOTE" = 'O''Brien' where "ORDER_ID" = '1001' and "STATUS" = 'NEW' and "AMOUNT" = '99.5' and "ORDER_DATE" = TO_DATE('2025-03-01 09:00:00', 'YYYY-MM-DD HH24:MI:SS') and "NOTE" IS NULL;"#;
const DELETE: &str = r#"delete from "APP"."ORDERS" where "ORDER_ID" = '1001' and "STATUS" = 'PAID' and "AMOUNT" = '99.5' and "ORDER_DATE" = TO_DATE('2025-03-01 09:00:00', 'YYYY-MM-DD HH24:MI:SS') and "NOTE" = 'O''Brien';"#;

#[test]
fn insert_gives_after_image_in_column_order_and_no_before() {
    let s = parse(INSERT).unwrap();
    assert_eq!(s.kind, DmlKind::Insert);
    assert_eq!((s.schema(), s.table()), ("APP", "ORDERS"));
    assert_eq!(s.before_image(), None);
    assert_eq!(
        s.after_image().unwrap(),
        vec![
            ("ORDER_ID".to_string(), text("1001")),
            ("STATUS".to_string(), text("NEW")),
            ("AMOUNT".to_string(), text("99.5")),
            ("ORDER_DATE".to_string(), text("2025-03-01T09:00:00")),
            ("NOTE".to_string(), Field::Null),
        ]
    );
    assert!(s.findings().is_empty());
}

#[test]
fn update_before_is_where_and_after_merges_set_over_it() {
    let s = parse(UPDATE).unwrap();
    assert_eq!(s.kind, DmlKind::Update);
    let before = s.before_image().unwrap();
    assert_eq!(before.len(), 5);
    assert_eq!(before.get_field("STATUS"), Some(text("NEW")));
    assert_eq!(before.get_field("NOTE"), Some(Field::Null));
    let after = s.after_image().unwrap();
    let cols: Vec<_> = after.names().collect();
    assert_eq!(cols, ["ORDER_ID", "STATUS", "AMOUNT", "ORDER_DATE", "NOTE"]);
    assert_eq!(after.get_field("STATUS"), Some(text("PAID")));
    assert_eq!(after.get_field("NOTE"), Some(text("O'Brien")));
    assert_eq!(after.get_field("AMOUNT"), Some(text("99.5")));
    assert!(s.findings().is_empty());
}

#[test]
fn update_set_column_missing_from_where_is_appended_to_after() {
    let s = parse(r#"update "A"."T" set "X" = '2' where "ID" = '1'"#).unwrap();
    assert_eq!(
        s.after_image().unwrap(),
        vec![("ID".into(), text("1")), ("X".into(), text("2"))]
    );
}

#[test]
fn delete_before_is_the_whole_where_and_after_is_none() {
    let s = parse(DELETE).unwrap();
    assert_eq!(s.kind, DmlKind::Delete);
    assert_eq!(s.after_image(), None);
    let before = s.before_image().unwrap();
    assert_eq!(before.len(), 5);
    assert_eq!(before.get_field("NOTE"), Some(text("O'Brien")));
}

#[test]
fn keywords_are_case_insensitive_and_whitespace_may_be_anywhere() {
    let sql = "  INSERT\n INTO \"A\" . \"T\" (\n\"X\" ,\t\"Y\" )\r\nVALUES(  'a' ,\n NULL )  ";
    let s = parse(sql).unwrap();
    assert_eq!(
        s.after_image().unwrap(),
        vec![("X".into(), text("a")), ("Y".into(), Field::Null)]
    );
    let u =
        parse("UPDATE \"A\".\"T\" SET \"X\" = 'b' WHERE \"X\" = 'a' AND \"Y\" is null;").unwrap();
    assert_eq!(u.before_image().unwrap().to_vec()[1].1, Field::Null);
}

#[test]
fn trailing_semicolon_is_optional() {
    assert_eq!(
        parse(INSERT).unwrap(),
        parse(INSERT.trim_end_matches(';')).unwrap()
    );
}

#[test]
fn strings_keep_commas_parens_semicolons_and_and_newlines() {
    assert_eq!(
        one("'a, (b); and c\nd ''q'' 中文 é'"),
        text("a, (b); and c\nd 'q' 中文 é")
    );
    assert_eq!(one("'it''s'"), text("it's"));
    assert_eq!(one("''''"), text("'"));
    assert_eq!(one("''"), text(""));
    assert_eq!(one("'a''''b'"), text("a''b"));
    assert_eq!(one("'x'''"), text("x'"));
    assert_eq!(one("'''é'"), text("'é"));
}

#[test]
fn quoted_numbers_keep_their_exact_text() {
    assert_eq!(one("'123.45'"), text("123.45"));
    assert_eq!(one("'-7'"), text("-7"));
    assert_eq!(one("'1.0E+30'"), text("1.0E+30"));
}

#[test]
fn unquoted_numbers_as_dm8_writes_them_are_taken() {
    assert_eq!(one("123"), text("123"));
    assert_eq!(one("-1.5"), text("-1.5"));
    assert_eq!(one("3.14159E0"), text("3.14159E0"));
    assert_eq!(one("2e-5"), text("2e-5"));
    assert_eq!(one(".5"), text(".5"));
    let s = parse(r#"delete from "A"."T" where "ID" = 42 and "V" = -3"#).unwrap();
    assert_eq!(s.before_image().unwrap().to_vec()[0].1, text("42"));
}

#[test]
fn malformed_unquoted_numbers_are_errors() {
    for bad in ["1e", "-", "12abc", "1.2.3"] {
        let sql = format!(r#"insert into "A"."T"("C") values ({bad})"#);
        assert!(parse(&sql).is_err(), "{bad} should not parse");
    }
}

#[test]
fn dates_and_timestamps_become_iso_with_fraction_kept() {
    assert_eq!(
        one("TO_DATE('2025-03-01 09:00:00', 'YYYY-MM-DD HH24:MI:SS')"),
        text("2025-03-01T09:00:00")
    );
    assert_eq!(
        one("TO_TIMESTAMP('2025-03-01 09:00:00.123456000')"),
        text("2025-03-01T09:00:00.123456000")
    );
    assert_eq!(
        one("TO_TIMESTAMP('2025-03-01 09:00:00')"),
        text("2025-03-01T09:00:00")
    );
    assert_eq!(
        one("TO_TIMESTAMP_TZ('2025-03-01 09:00:00.123456000 +08:00')"),
        text("2025-03-01T01:00:00.123456000Z")
    );
    assert_eq!(
        one("TO_TIMESTAMP_TZ('2025-03-01 09:00:00.5 -05:30')"),
        text("2025-03-01T14:30:00.5Z")
    );
    assert_eq!(
        one("to_timestamp_tz('2025-03-01 09:00:00.000000000 Europe/Paris')"),
        text("2025-03-01T09:00:00.000000000 Europe/Paris")
    );
}

#[test]
fn date_in_another_format_is_an_error_not_a_guess() {
    let err = parse(r#"insert into "A"."T"("C") values (TO_DATE('01-MAR-25', 'DD-MON-RR'))"#)
        .unwrap_err();
    assert!(err.message.contains("NLS_DATE_FORMAT"), "{}", err.message);
    assert_eq!(err.position, 33);
    assert!(parse(r#"insert into "A"."T"("C") values (TO_DATE('01-MAR-25'))"#).is_err());
    assert!(
        parse(r#"insert into "A"."T"("C") values (TO_TIMESTAMP('2025-03-01 09:00'))"#).is_err()
    );
    assert!(parse(
        r#"insert into "A"."T"("C") values (TO_TIMESTAMP('2025-03-01 09:00:00.1234567890'))"#
    )
    .is_err());
    assert!(
        parse(r#"insert into "A"."T"("C") values (TO_TIMESTAMP_TZ('2025-03-01 09:00:00.1'))"#)
            .is_err()
    );
}

#[test]
fn timestamp_zero_with_empty_fraction_reads_as_point_zero() {
    // TIMESTAMP(0) under NLS_TIMESTAMP_FORMAT '...SS.FF' prints no digits
    // after the point.
    assert_eq!(
        one("TO_TIMESTAMP('2020-02-01 00:00:00.')"),
        text("2020-02-01T00:00:00.0")
    );
    assert_eq!(
        one("TO_TIMESTAMP_TZ('2020-02-01 00:00:00. +00:00')"),
        text("2020-02-01T00:00:00.0Z")
    );
    let s = parse(r#"update "A"."T" set "TS" = TO_TIMESTAMP('2020-02-01 00:00:01.') where "TS" = TO_TIMESTAMP('2020-02-01 00:00:00.')"#).unwrap();
    assert_eq!(
        s.before_image().unwrap(),
        vec![("TS".into(), text("2020-02-01T00:00:00.0"))]
    );
    assert_eq!(
        s.after_image().unwrap(),
        vec![("TS".into(), text("2020-02-01T00:00:01.0"))]
    );
}

#[test]
fn iso_ordered_timestamps_take_every_fraction_length_and_zone_form() {
    for digits in 0..=9usize {
        let frac: String = "123456789".chars().take(digits).collect();
        let dot = if digits == 0 { "" } else { "." };
        assert_eq!(
            one(&format!("TO_TIMESTAMP('2025-03-01 09:00:00{dot}{frac}')")),
            text(&format!("2025-03-01T09:00:00{dot}{frac}")),
        );
        assert_eq!(
            one(&format!(
                "TO_TIMESTAMP_TZ('2025-03-01 09:00:00{dot}{frac} -05:00')"
            )),
            text(&format!("2025-03-01T14:00:00{dot}{frac}Z")),
        );
    }
    for (literal, canonical) in [
        ("2025-03-01 09:00:00.5+08:00", "2025-03-01T01:00:00.5Z"),
        ("2025-03-01 09:00:00 +8:00", "2025-03-01T01:00:00Z"),
        ("2025-03-01T09:00:00.5 +08:00", "2025-03-01T01:00:00.5Z"),
        ("2025-03-01 00:30:00 +01:00", "2025-02-28T23:30:00Z"),
        ("2025-03-01 09:00:00.5 UTC", "2025-03-01T09:00:00.5Z"),
        ("2025-03-01 09:00:00.5Z", "2025-03-01T09:00:00.5Z"),
        (
            "2025-03-01 09:00:00.123 US/Pacific PST",
            "2025-03-01T09:00:00.123 US/Pacific PST",
        ),
        (
            "2025-03-01 09:00:00 America/Argentina/Buenos_Aires",
            "2025-03-01T09:00:00 America/Argentina/Buenos_Aires",
        ),
    ] {
        assert_eq!(
            one(&format!("TO_TIMESTAMP_TZ('{literal}')")),
            text(canonical),
            "{literal}"
        );
    }
    // A format argument that is ISO-ordered like the session's is taken.
    assert_eq!(
        one("TO_TIMESTAMP('2025-03-01 09:00:00.12', 'YYYY-MM-DD HH24:MI:SS.FF2')"),
        text("2025-03-01T09:00:00.12")
    );
}

#[test]
fn ambiguous_timestamp_is_an_error_naming_column_literal_and_format() {
    let sql = r#"insert into "A"."T"("ID","CREATED") values ('1',TO_TIMESTAMP('01-FEB-20 12.00.00.000000 AM'))"#;
    let err = parse(sql).unwrap_err();
    for part in [
        "\"CREATED\"",
        "'01-FEB-20 12.00.00.000000 AM'",
        "ambiguous",
        "YYYY-MM-DD HH24:MI:SS[.FF]",
        "NLS_TIMESTAMP_FORMAT",
    ] {
        assert!(err.message.contains(part), "{part} in {}", err.message);
    }
    // The TIMESTAMP error names the TIMESTAMP format, not the DATE one.
    assert!(!err.message.contains("NLS_DATE_FORMAT"), "{}", err.message);
    assert_eq!(err.position, sql.find("TO_TIMESTAMP").unwrap());

    let err = parse(
        r#"insert into "A"."T"("C") values (TO_TIMESTAMP_TZ('01-FEB-20 12.00.00.0 AM +00:00'))"#,
    )
    .unwrap_err();
    assert!(
        err.message.contains("NLS_TIMESTAMP_TZ_FORMAT"),
        "{}",
        err.message
    );
    let err = parse(r#"insert into "A"."T"("C") values (TO_TIMESTAMP('01-FEB-20', 'DD-MON-RR'))"#)
        .unwrap_err();
    assert!(err.message.contains("'DD-MON-RR'"), "{}", err.message);
    assert!(err.message.contains("ambiguous"), "{}", err.message);
    for bad in [
        "TO_TIMESTAMP('2025-03-01 09:00:00 +08:00')",
        "TO_TIMESTAMP('2025-03-01 09:00:00..')",
        "TO_TIMESTAMP_TZ('2025-03-01 09:00:00.1 +08')",
        "TO_TIMESTAMP_TZ('2025-03-01 09:00:00.1 US/Pacific PST X')",
        "TO_TIMESTAMP_TZ('2025-03-01 09:00:00.1 ')",
    ] {
        let sql = format!(r#"insert into "A"."T"("C") values ({bad})"#);
        assert!(parse(&sql).is_err(), "{bad} should not parse");
    }
}

fn json_findings(s: &Statement<'_>) -> Vec<(String, String)> {
    s.findings()
        .iter()
        .filter_map(|f| match f {
            Finding::JsonUndecoded { column, form, .. } => Some((column.clone(), form.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn native_json_empty_blob_in_insert_is_unavailable_with_a_finding() {
    // 21c+ LogMiner marks a native JSON column with a comment; a value not
    // logged in the row prints as EMPTY_BLOB().
    let s = parse(r#"insert into "APP"."DOCS"("ID","DOC") values ('1',/* JSON */ EMPTY_BLOB());"#)
        .unwrap();
    assert_eq!(
        s.after_image().unwrap(),
        vec![("ID".into(), text("1")), ("DOC".into(), Field::Unavailable)]
    );
    assert_eq!(json_findings(&s), [("DOC".into(), "unavailable".into())]);
    assert!(s.findings()[0].message().contains("APP.DOCS.DOC"));
}

#[test]
fn native_json_binary_oson_is_unavailable_with_a_finding_once_per_column() {
    let oson = "FF4A5A0121060000000100";
    let sql = format!(
        r#"update "APP"."DOCS" set "DOC" = /* JSON */ HEXTORAW('{oson}') where "ID" = '1' and "DOC" = /*JSON*/HEXTORAW('ff4a5a01')"#
    );
    let s = parse(&sql).unwrap();
    assert_eq!(
        s.after_image().unwrap().get_field("DOC"),
        Some(Field::Unavailable)
    );
    assert_eq!(
        s.before_image().unwrap().get_field("DOC"),
        Some(Field::Unavailable)
    );
    assert_eq!(json_findings(&s), [("DOC".into(), "oson_hex".into())]);
}

#[test]
fn native_json_bytes_that_are_json_text_become_the_text_without_a_finding() {
    let doc = r#"{"a":[1,"x"]}"#;
    let hex: String = doc.bytes().map(|b| format!("{b:02X}")).collect();
    let sql = format!(
        r#"insert into "A"."T"("J","K") values (/* JSON */ HEXTORAW('{hex}'),/* JSON */ NULL)"#
    );
    let s = parse(&sql).unwrap();
    assert_eq!(
        s.after_image().unwrap(),
        vec![("J".into(), text(doc)), ("K".into(), Field::Null)]
    );
    assert!(s.findings().is_empty());
    // Bytes that are UTF-8 but no JSON document are no value either.
    assert_eq!(one("/* JSON */ HEXTORAW('7b7b')"), Field::Unavailable);
    // A plain RAW column is not JSON: hex, no finding.
    assert!(
        parse(r#"insert into "A"."T"("R") values (HEXTORAW('7b7d'))"#)
            .unwrap()
            .findings()
            .is_empty()
    );
}

#[test]
fn any_comment_before_a_value_is_skipped_and_an_open_one_is_an_error() {
    assert_eq!(one("/* anything */ '1'"), text("1"));
    assert_eq!(one("/* a */ /* JSON */ EMPTY_BLOB()"), Field::Unavailable);
    assert_eq!(
        one("/**/ TO_DATE('2025-03-01 09:00:00', 'YYYY-MM-DD HH24:MI:SS')"),
        text("2025-03-01T09:00:00")
    );
    let sql = r#"insert into "A"."T"("C") values (/* JSON EMPTY_BLOB())"#;
    let err = parse(sql).unwrap_err();
    assert!(
        err.message.contains("comment never ends"),
        "{}",
        err.message
    );
    assert_eq!(err.position, 33);
    assert!(parse(r#"insert into "A"."T"("C") values (/* JSON */)"#).is_err());
}

const RELAXED: ParseOptions = ParseOptions {
    relaxed_quotes: true,
};

fn recovered_columns(s: &Statement<'_>) -> Vec<String> {
    s.findings()
        .iter()
        .filter_map(|f| match f {
            Finding::UnescapedQuote { column, .. } => Some(column.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn unescaped_quote_is_an_error_pointing_at_the_quote_with_a_caret() {
    // Some releases print O'Brien inside a literal without doubling the quote.
    let sql = r#"insert into "APP"."T"("ID","NAME") values ('1','O'Brien');"#;
    let err = parse(sql).unwrap_err();
    let quote = sql.find("O'B").unwrap() + 1;
    assert_eq!(err.position, quote);
    assert!(err.message.contains("unescaped quote"), "{}", err.message);
    assert!(
        err.message.contains(&format!("byte {quote}")),
        "{}",
        err.message
    );
    assert!(err.message.contains("--relaxed-quotes"), "{}", err.message);
    // The excerpt line and, under it, a caret at the quote.
    let lines: Vec<&str> = err.message.lines().collect();
    let excerpt = lines[lines.len() - 2];
    let caret = lines[lines.len() - 1];
    assert_eq!(caret.trim(), "^");
    let col = caret.chars().count() - 1;
    assert_eq!(excerpt.chars().nth(col), Some('\''));
    assert_eq!(excerpt.chars().nth(col + 1), Some('B'));
    // Without --relaxed-quotes the options change nothing.
    assert_eq!(parse_with(sql, ParseOptions::default()).unwrap_err(), err);
}

#[test]
fn relaxed_quotes_recover_insert_values_from_the_column_count() {
    let sql = r#"insert into "APP"."T"("ID","NAME","NOTE") values ('1','O'Brien','it's, (ok)');"#;
    let s = parse_with(sql, RELAXED).unwrap();
    assert_eq!(
        s.after_image().unwrap(),
        vec![
            ("ID".into(), text("1")),
            ("NAME".into(), text("O'Brien")),
            ("NOTE".into(), text("it's, (ok)")),
        ]
    );
    assert_eq!(recovered_columns(&s), ["NAME", "NOTE"]);
    // A value whose text ends right before `,` is resolved by the count:
    // two columns leave one reading only.
    let s = parse_with(
        r#"insert into "A"."T"("A","B") values ('say 'hi', then','x')"#,
        RELAXED,
    )
    .unwrap();
    assert_eq!(
        s.after_image().unwrap().get_field("A"),
        Some(text("say 'hi', then"))
    );
    assert_eq!(recovered_columns(&s), ["A"]);
}

#[test]
fn relaxed_quotes_recover_set_and_where_values_and_keep_the_rest_exact() {
    let sql = r#"update "APP"."T" a set a."NAME" = 'O'Brien' where a."ID" = '1' and a."NAME" = 'd'Arcy' and a."NOTE" = 'ok''s' and ROWID = 'AAAR3s';"#;
    let s = parse_with(sql, RELAXED).unwrap();
    assert_eq!(
        s.before_image().unwrap(),
        vec![
            ("ID".into(), text("1")),
            ("NAME".into(), text("d'Arcy")),
            ("NOTE".into(), text("ok's")),
        ]
    );
    assert_eq!(
        s.after_image().unwrap().get_field("NAME"),
        Some(text("O'Brien"))
    );
    assert_eq!(s.row_id(), Some("AAAR3s"));
    assert_eq!(recovered_columns(&s), ["NAME", "NAME"]);
    let s = parse_with(
        r#"delete from "A"."T" where "K" = 'x' and "V" = 'rock 'n' roll'"#,
        RELAXED,
    )
    .unwrap();
    assert_eq!(
        s.before_image().unwrap().get_field("V"),
        Some(text("rock 'n' roll"))
    );
}

#[test]
fn relaxed_quotes_refuse_a_statement_with_two_readings_never_truncating() {
    // A SET value never runs past the start of the next term.
    let sql = r#"update "A"."T" set "C" = 'x'y', "D" = 'z' where "K" = '1'"#;
    let s = parse_with(sql, RELAXED).unwrap();
    assert_eq!(s.assigned()[0], ("C", Value::Text("x'y".into())));
    assert_eq!(s.assigned()[1], ("D", Value::Text("z".into())));
    let sql = r#"insert into "A"."T"("A","B","C") values ('p', 'q', 'r's')"#;
    let s = parse_with(sql, RELAXED).unwrap();
    assert_eq!(s.after_image().unwrap().get_field("C"), Some(text("r's")));
    let sql = r#"insert into "A"."T"("A","B") values ('p', 'q', 'r', 's')"#;
    let err = parse_with(sql, RELAXED).unwrap_err();
    assert!(err.message.contains("more than one way"), "{}", err.message);
    let sql = r#"insert into "A"."T"("A","B") values ('p'q')"#;
    let err = parse_with(sql, RELAXED).unwrap_err();
    assert!(err.message.contains("--relaxed-quotes:"), "{}", err.message);
    assert!(err.message.contains("unescaped quote"), "{}", err.message);
}

fn dictionary(charset: &str, nchar: &str) -> crate::engine::charset::CharsetDictionary {
    use crate::engine::charset::{Charset, CharsetDictionary};
    let cs = |n: &str| Charset::from_oracle_name(n).unwrap();
    let mut d = CharsetDictionary::new(cs(charset), cs(nchar));
    d.add_column("APP", "T", "NAME", "VARCHAR2(40)");
    d.add_column("APP", "T", "CODE", "CHAR(4)");
    d.add_column("APP", "T", "NNAME", "NVARCHAR2(40)");
    d.add_column("APP", "T", "TOKEN", "RAW(16)");
    d
}

fn hex_findings(s: &Statement<'_>) -> Vec<(String, String)> {
    s.findings()
        .iter()
        .filter_map(|f| match f {
            Finding::CharacterHex { column, reason, .. } => Some((column.clone(), reason.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn character_hex_skips_the_finding_of_a_column_already_reported_and_still_decodes() {
    let sql = r#"insert into "APP"."T"("NAME","CODE","TOKEN") values (HEXTORAW('ff'),HEXTORAW('63616665'),HEXTORAW('0A0B'))"#;
    let mut s = parse(sql).unwrap();
    // NAME's byte is not UTF-8: kept as hex, reported unless given.
    s.decode_character_hex_except(
        Some(&dictionary("AL32UTF8", "AL16UTF16")),
        |schema, table, column| (schema, table, column) == ("APP", "T", "NAME"),
    );
    assert!(hex_findings(&s).is_empty(), "{:?}", s.findings());
    assert_eq!(
        s.after_image().unwrap().get_field("CODE"),
        Some(text("cafe"))
    );

    let mut s = parse(sql).unwrap();
    s.decode_character_hex_except(None, |_, _, column| column == "CODE");
    let columns: Vec<String> = hex_findings(&s).into_iter().map(|(c, _)| c).collect();
    assert_eq!(columns, ["NAME", "TOKEN"]);
}

#[test]
fn hextoraw_character_data_decodes_with_the_column_character_set() {
    // LogMiner prints HEXTORAW for character data it cannot show as text;
    // the bytes are in the database set (VARCHAR2/CHAR) or the national
    // one (NVARCHAR2). RAW stays hex.
    for (charset, name_hex, code_hex) in [
        ("AL32UTF8", "e4b8ade69687", "63616665"),
        ("UTF8", "e4b8ade69687", "63616665"),
        ("ZHS16GBK", "d6d0cec4", "63616665"),
    ] {
        let sql = format!(
            r#"insert into "APP"."T"("NAME","CODE","NNAME","TOKEN") values (HEXTORAW('{name_hex}'),HEXTORAW('{code_hex}'),HEXTORAW('00e90041'),HEXTORAW('0A0B'))"#
        );
        let mut s = parse(&sql).unwrap();
        s.decode_character_hex(Some(&dictionary(charset, "AL16UTF16")));
        assert_eq!(
            s.after_image().unwrap(),
            vec![
                ("NAME".into(), text("中文")),
                ("CODE".into(), text("cafe")),
                ("NNAME".into(), text("éA")),
                ("TOKEN".into(), Field::Binary("0a0b".into())),
            ],
            "{charset}"
        );
        assert!(s.findings().is_empty(), "{charset}: {:?}", s.findings());
    }
    for (charset, hex, want) in [
        ("WE8MSWIN1252", "636166e980", "café€"),
        ("WE8ISO8859P1", "636166e9", "café"),
    ] {
        let sql = format!(
            r#"update "APP"."T" set "NAME" = HEXTORAW('{hex}') where "NAME" = HEXTORAW('{hex}')"#
        );
        let mut s = parse(&sql).unwrap();
        s.decode_character_hex(Some(&dictionary(charset, "AL16UTF16")));
        assert_eq!(s.after_image().unwrap(), vec![("NAME".into(), text(want))]);
        assert_eq!(s.before_image().unwrap(), vec![("NAME".into(), text(want))]);
    }
}

#[test]
fn hextoraw_kept_as_hex_says_why_once_per_column() {
    let sql = r#"update "APP"."T" set "NAME" = HEXTORAW('FF') where "NAME" = HEXTORAW('41') and "TOKEN" = HEXTORAW('0A')"#;
    // No dictionary: RAW cannot be told from character data.
    let mut s = parse(sql).unwrap();
    s.decode_character_hex(None);
    assert_eq!(
        s.after_image().unwrap().get_field("NAME"),
        Some(Field::Binary("ff".into()))
    );
    let found = hex_findings(&s);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].0, "NAME");
    assert!(found[0].1.contains("no dictionary"), "{found:?}");
    // Bytes not valid in the set stay hex, flagged; the valid ones decode.
    let mut s = parse(sql).unwrap();
    s.decode_character_hex(Some(&dictionary("AL32UTF8", "AL16UTF16")));
    assert_eq!(
        s.after_image().unwrap().get_field("NAME"),
        Some(Field::Binary("ff".into()))
    );
    assert_eq!(s.before_image().unwrap().get_field("NAME"), Some(text("A")));
    assert_eq!(
        hex_findings(&s),
        [("NAME".into(), "the bytes are not valid AL32UTF8".into())]
    );
    // A table the dictionary does not know.
    let mut s = parse(r#"insert into "APP"."OTHER"("C") values (HEXTORAW('41'))"#).unwrap();
    s.decode_character_hex(Some(&dictionary("AL32UTF8", "AL16UTF16")));
    assert!(hex_findings(&s).to_vec()[0]
        .1
        .contains("does not know the table"));
}

#[test]
fn relaxed_quotes_never_recover_a_rowid_holding_quotes() {
    // Found by fuzzing: a ROWID literal with stray quotes was read as a
    // recovered value with no column to name in a finding.
    let sql = r#"update "A"."T" a set a."N" = 'x' where a."K" = '1' and a.ROWID = 'AAAR3sAAEAAAATO_TIMESTAMP('2025-03-01 09:00:00.123456789')CXAAA';"#;
    assert!(parse(sql).is_err());
    assert!(parse_with(sql, RELAXED).is_err());
}

#[test]
fn issue9_relaxed_quotes_take_a_rowid_only_as_a_string_literal_like_the_strict_parser() {
    // Found by fuzzing: `ROWID = HEXTORAW('...')` failed the strict parser
    // and the relaxed one took it, with no quote recovered to report.
    for sql in [
        r#"update "S"."T" a set a."C" = HEXTORAW('01') where ROWID = HEXTORAW('d6d0') and a."R" = HEXTORAW('0a0b') and ROWID = 'AAASEQAAMAAAACKAAK';"#,
        r#"update "S"."T" set "C" = '1' where ROWID = HEXTORAW('00') and "K" = '2';"#,
        r#"delete from "S"."T" where "K" = '2' and ROWID = NULL;"#,
        r#"delete from "S"."T" where "K" = '2' and ROWID = 7;"#,
    ] {
        let strict = parse(sql).unwrap_err();
        let relaxed = parse_with(sql, RELAXED).unwrap_err();
        assert_eq!(relaxed.position, strict.position, "{sql}");
        assert!(
            strict.message.contains("expected a string literal"),
            "{strict}"
        );
    }
    let ok = r#"update "S"."T" set "C" = 'it's' where "K" = '2' and ROWID = 'AAASEQAAMAAAACKAAK';"#;
    assert_eq!(
        parse_with(ok, RELAXED).unwrap().row_id(),
        Some("AAASEQAAMAAAACKAAK")
    );
}

#[test]
fn raw_is_lower_case_hex_and_non_hex_is_refused() {
    assert_eq!(one("HEXTORAW('0A0b0C')"), Field::Binary("0a0b0c".into()));
    assert_eq!(one("HEXTORAW('')"), Field::Binary(String::new()));
    assert!(parse(r#"insert into "A"."T"("C") values (HEXTORAW('0g'))"#).is_err());
}

#[test]
fn unistr_decodes_utf16_units_surrogate_pairs_and_backslashes() {
    assert_eq!(one(r"UNISTR('\4E2D\6587')"), text("中文"));
    assert_eq!(one(r"UNISTR('a\00e9b')"), text("aéb"));
    assert_eq!(one(r"UNISTR('\D83D\DE00')"), text("😀"));
    assert_eq!(one(r"UNISTR('c:\\dir')"), text(r"c:\dir"));
    assert_eq!(one(r"UNISTR('O''\00E9')"), text("O'é"));
    assert_eq!(one(r"UNISTR('plain')"), text("plain"));
}

#[test]
fn unistr_with_broken_escapes_is_an_error() {
    for bad in [r"\D83D", r"\D83Dx", r"\DE00", r"\12", r"\zzzz", r"\"] {
        let sql = format!(r#"insert into "A"."T"("C") values (UNISTR('{bad}'))"#);
        let err = parse(&sql).unwrap_err();
        assert!(err.message.contains("UNISTR"), "{bad}: {}", err.message);
    }
}

#[test]
fn concatenation_chains_join_strings_and_unistr() {
    assert_eq!(one(r"'ab' || UNISTR('\00E9')"), text("abé"));
    assert_eq!(
        one(r"UNISTR('\4E2D') || 'x''y' || UNISTR('\6587')"),
        text("中x'y文")
    );
    assert_eq!(one("'a'||'b'"), text("ab"));
    assert!(parse(r#"insert into "A"."T"("C") values ('a' || NULL)"#).is_err());
}

#[test]
fn lobs_and_unsupported_types_are_unavailable_never_values() {
    assert_eq!(one("EMPTY_CLOB()"), Field::Unavailable);
    assert_eq!(one("EMPTY_BLOB( )"), Field::UnavailableBinary);
    assert_eq!(one("Unsupported Type"), Field::Unavailable);
}

#[test]
fn intervals_keep_the_literal_text() {
    assert_eq!(one("TO_YMINTERVAL('+01-02')"), text("+01-02"));
    assert_eq!(
        one("TO_DSINTERVAL('+01 02:03:04.123456')"),
        text("+01 02:03:04.123456")
    );
}

#[test]
fn unsupported_type_in_where_is_unavailable_and_a_finding_once_per_column() {
    let s = parse(
        r#"update "APP"."DOCS" set "BODY" = Unsupported Type where "ID" = '1' and "BODY" = Unsupported Type and "XML" = Unsupported Type"#,
    )
    .unwrap();
    assert_eq!(
        s.before_image().unwrap().get_field("BODY"),
        Some(Field::Unavailable)
    );
    let cols: Vec<_> = s
        .findings()
        .iter()
        .map(|f| match f {
            Finding::UnsupportedType {
                schema,
                table,
                column,
            } => {
                assert_eq!((schema.as_str(), table.as_str()), ("APP", "DOCS"));
                column.as_str()
            }
            other => panic!("unexpected finding {other:?}"),
        })
        .collect();
    assert_eq!(cols, ["BODY", "XML"]);
}

#[test]
fn rowid_is_exposed_and_never_an_image_column() {
    let s = parse(
        r#"delete from "A"."T" where "ID" = '1' and "N" = 'x' and ROWID = 'AAAR3sAAEAAAACXAAA';"#,
    )
    .unwrap();
    assert_eq!(s.row_id(), Some("AAAR3sAAEAAAACXAAA"));
    assert_eq!(s.before_image().unwrap().len(), 2);
    assert!(s.findings().is_empty());
}

#[test]
fn update_whose_where_holds_only_changed_columns_and_rowid_is_partial() {
    let s = parse(
        r#"update "APP"."ORDERS" set "STATUS" = 'PAID' where "STATUS" = 'NEW' and ROWID = 'AAAR3sAAEAAAACXAAA';"#,
    )
    .unwrap();
    assert_eq!(
        s.findings(),
        [Finding::PartialBeforeImage {
            schema: "APP".into(),
            table: "ORDERS".into(),
            row_id: Some("AAAR3sAAEAAAACXAAA".into()),
        }]
    );
}

#[test]
fn update_with_key_column_beside_rowid_is_not_partial() {
    let s = parse(
        r#"update "APP"."ORDERS" set "STATUS" = 'PAID' where "ORDER_ID" = '1' and "STATUS" = 'NEW' and ROWID = 'AAAR3sAAEAAAACXAAA';"#,
    )
    .unwrap();
    assert!(s.findings().is_empty());
}

#[test]
fn rowid_alone_in_where_is_partial_for_update_and_delete() {
    for sql in [
        r#"update "A"."T" set "X" = '1' where ROWID = 'AAAR3s'"#,
        r#"delete from "A"."T" where ROWID = 'AAAR3s'"#,
    ] {
        let s = parse(sql).unwrap();
        assert!(
            matches!(s.findings(), [Finding::PartialBeforeImage { .. }]),
            "{sql}"
        );
        assert_eq!(s.before_image(), Some(Image::new()));
    }
}

#[test]
fn update_without_rowid_is_not_flagged_by_the_parser() {
    let s = parse(r#"update "A"."T" set "X" = '1' where "X" = '0'"#).unwrap();
    assert!(s.findings().is_empty());
}

#[test]
fn unknown_object_is_a_dictionary_mismatch_with_the_object_number() {
    let s = parse(
        r#"insert into "UNKNOWN"."OBJ# 74622"("COL 1","COL 2") values (HEXTORAW('c30b0b'),HEXTORAW('4e4557'));"#,
    )
    .unwrap();
    assert_eq!(s.table(), "OBJ# 74622");
    match s.findings() {
        [Finding::DictionaryMismatch { object_id, detail }] => {
            assert_eq!(*object_id, Some(74622));
            assert!(detail.contains("OBJ# 74622"));
        }
        other => panic!("expected one dictionary mismatch, got {other:?}"),
    }
}

#[test]
fn generic_column_names_alone_are_a_dictionary_mismatch_without_object_number() {
    let s = parse(r#"update "APP"."T" set "COL 3" = '1' where "COL 1" = '7'"#).unwrap();
    assert!(matches!(
        s.findings(),
        [Finding::DictionaryMismatch {
            object_id: None,
            ..
        }]
    ));
    assert!(
        parse(r#"update "APP"."T" set "COLOR" = '1' where "COL" = '7'"#)
            .unwrap()
            .findings()
            .is_empty()
    );
}

#[test]
fn status_two_is_unreconstructable_with_the_info_text() {
    assert_eq!(
        finding_for_status(2, Some("Unsupported column type")),
        Some(Finding::Unreconstructable {
            info: "Unsupported column type".into()
        })
    );
    assert!(matches!(
        finding_for_status(2, None),
        Some(Finding::Unreconstructable { info }) if !info.is_empty()
    ));
    assert_eq!(finding_for_status(0, Some("x")), None);
}

#[test]
fn values_borrow_the_input_unless_unescaping_changed_them() {
    let s = parse(r#"insert into "A"."T"("X","Y","Z") values ('plain','it''s',UNISTR('\00E9'))"#)
        .unwrap();
    let vals: Vec<_> = s.assigned().iter().map(|(_, v)| v).collect();
    assert!(matches!(vals[0], Value::Text(Cow::Borrowed("plain"))));
    assert!(matches!(vals[1], Value::Text(Cow::Owned(_))));
    assert!(matches!(vals[2], Value::Text(Cow::Owned(_))));
}

#[test]
fn errors_carry_message_position_and_raw_text() {
    let sql = r#"insert into "A"."T"("X","Y") values ('1')"#;
    let err = parse(sql).unwrap_err();
    assert_eq!(err.raw, sql);
    assert!(err.message.contains("fewer values"), "{}", err.message);
    let err = parse(r#"insert into "A"."T"("X") values ('1','2')"#).unwrap_err();
    assert!(err.message.contains("more values"));
    assert_eq!(err.position, 37);
    let err = parse(r#"update "A"."T" set "X" = 'open"#).unwrap_err();
    assert!(err.message.contains("never ends"));
    assert_eq!(err.position, 25);
    let err = parse("commit;").unwrap_err();
    assert_eq!(err.position, 0);
    // Text after a literal that cannot follow a value puts the blame on
    // the literal's closing quote.
    let err = parse(r#"delete from "A"."T" where "X" = '1' or "Y" = '2'"#).unwrap_err();
    assert_eq!(err.position, 34);
    let err = parse(r#"delete from "A"."T" where "X" = 1 or "Y" = '2'"#).unwrap_err();
    assert_eq!(err.position, 34);
    assert!(parse(r#"insert into "A"."T"("X") values (SYSDATE)"#).is_err());
    assert!(parse(r#"insert into "A"."T("X") values ('1')"#).is_err());
    assert!(parse("").is_err());
}

#[test]
fn table_alias_in_update_set_and_where_gives_the_unaliased_images() {
    // LogMiner's form for an update it rebuilds through an alias, as in
    // Oracle's XMLType example: `update "S"."T" a set a."C" = ... where a."K" = ...`.
    let aliased = r#"update "APP"."ORDERS" a set a."STATUS" = 'PAID', a."NOTE" = 'O''Brien' where a."ORDER_ID" = '1001' and a."STATUS" = 'NEW' and a."NOTE" IS NULL and a.ROWID = 'AAAR3sAAEAAAACXAAA';"#;
    let plain = r#"update "APP"."ORDERS" set "STATUS" = 'PAID', "NOTE" = 'O''Brien' where "ORDER_ID" = '1001' and "STATUS" = 'NEW' and "NOTE" IS NULL and ROWID = 'AAAR3sAAEAAAACXAAA';"#;
    let (a, p) = (parse(aliased).unwrap(), parse(plain).unwrap());
    assert_eq!((a.schema(), a.table()), ("APP", "ORDERS"));
    assert_eq!(a.before_image(), p.before_image());
    assert_eq!(a.after_image(), p.after_image());
    assert_eq!(a.row_id(), Some("AAAR3sAAEAAAACXAAA"));
    assert_eq!(a.findings(), p.findings());
}

#[test]
fn table_alias_in_delete_and_in_upper_case_is_taken() {
    let s =
        parse(r#"DELETE FROM "APP"."ORDERS" T1 WHERE t1."ORDER_ID" = '7' AND T1."NOTE" IS NULL"#)
            .unwrap();
    assert_eq!(s.kind, DmlKind::Delete);
    assert_eq!(
        s.before_image().unwrap(),
        vec![("ORDER_ID".into(), text("7")), ("NOTE".into(), Field::Null)]
    );
    // An alias with some columns left unqualified reads the same.
    let s = parse(r#"update "A"."T" x set "C" = '1' where x."K" = '2'"#).unwrap();
    assert_eq!(
        s.after_image().unwrap(),
        vec![("K".into(), text("2")), ("C".into(), text("1"))]
    );
    let s = parse(r#"delete from "A"."T" a;"#).unwrap();
    assert_eq!(s.before_image(), Some(Image::new()));
}

#[test]
fn column_qualified_by_another_name_than_the_alias_is_an_error() {
    let sql = r#"update "A"."T" a set b."C" = '1' where a."K" = '2'"#;
    let err = parse(sql).unwrap_err();
    assert!(err.message.contains("`b`"), "{}", err.message);
    assert_eq!(err.position, 21);
    let err = parse(r#"update "A"."T" set a."C" = '1'"#).unwrap_err();
    assert_eq!(err.position, 19);
    assert!(parse(r#"insert into "A"."T" a("C") values ('1')"#).is_err());
}

/// A literal as LogMiner writes it, with the canonical field it must become.
fn literal_strategy() -> impl Strategy<Value = (String, Field)> {
    let fixed = |lit: &str, f: Field| Just((lit.to_string(), f));
    prop_oneof![
        fixed("NULL", Field::Null),
        "[^']{0,12}".prop_map(|s| (format!("'{s}'"), Field::Text(s))),
        "[a-z' ,();|\n]{0,12}"
            .prop_map(|s| (format!("'{}'", s.replace('\'', "''")), Field::Text(s))),
        (-99999i64..99999).prop_map(|n| (format!("'{n}'"), Field::Text(n.to_string()))),
        (-99999i64..99999).prop_map(|n| (n.to_string(), Field::Text(n.to_string()))),
        (1u32..13, 1u32..29, 0u32..24).prop_map(|(m, d, h)| (
            format!("TO_DATE('2025-{m:02}-{d:02} {h:02}:00:00', 'YYYY-MM-DD HH24:MI:SS')"),
            Field::Text(format!("2025-{m:02}-{d:02}T{h:02}:00:00")),
        )),
        (0u32..1_000_000).prop_map(|f| (
            format!("TO_TIMESTAMP('2025-03-01 09:00:00.{f:06}000')"),
            Field::Text(format!("2025-03-01T09:00:00.{f:06}000")),
        )),
        fixed(
            "TO_TIMESTAMP_TZ('2025-03-01 09:00:00.123456000 +08:00')",
            Field::text("2025-03-01T01:00:00.123456000Z"),
        ),
        "[0-9a-fA-F]{0,8}"
            .prop_map(|h| (format!("HEXTORAW('{h}')"), Field::Binary(h.to_lowercase()))),
        prop::collection::vec(any::<char>(), 0..4).prop_map(|cs| {
            let text: String = cs.iter().collect();
            let esc: String = text.encode_utf16().map(|u| format!("\\{u:04X}")).collect();
            (format!("UNISTR('{esc}')"), Field::Text(text))
        }),
        fixed(r"'ab' || UNISTR('\00E9')", Field::text("abé")),
        fixed("EMPTY_CLOB()", Field::Unavailable),
        fixed(
            "TO_DSINTERVAL('+01 02:03:04.123456')",
            Field::text("+01 02:03:04.123456")
        ),
        fixed("Unsupported Type", Field::Unavailable),
        fixed("/* JSON */ EMPTY_BLOB()", Field::Unavailable),
        fixed("/* JSON */ HEXTORAW('FF4A5A01')", Field::Unavailable),
        fixed("/* JSON */ HEXTORAW('5b315d')", Field::text("[1]")),
        (0u32..1_000_000).prop_map(|f| (
            format!(
                "TO_TIMESTAMP('2020-02-01 00:00:00.{}')",
                if f % 2 == 0 {
                    String::new()
                } else {
                    f.to_string()
                }
            ),
            Field::Text(format!(
                "2020-02-01T00:00:00.{}",
                if f % 2 == 0 {
                    "0".to_string()
                } else {
                    f.to_string()
                }
            )),
        )),
    ]
}

/// A statement, and the values its image must hold in column order.
fn statement_strategy() -> impl Strategy<Value = (String, Vec<Field>)> {
    (
        0..3u8,
        any::<bool>(),
        prop::collection::vec(literal_strategy(), 1..6),
        any::<bool>(),
    )
        .prop_map(|(k, upper, lits, aliased)| {
            // UPDATE and DELETE may carry a table alias qualifying every
            // column: `update "S"."T" a set a."C0" = ...`.
            let (alias, q) = if aliased && k > 0 {
                (" a", "a.")
            } else {
                ("", "")
            };
            let kw = |w: &str| {
                if upper {
                    w.to_uppercase()
                } else {
                    w.to_string()
                }
            };
            let cols: Vec<String> = (0..lits.len()).map(|i| format!("\"C{i}\"")).collect();
            let pairs = |sep: &str, null_as_is: bool| {
                cols.iter()
                    .zip(&lits)
                    .map(|(c, (v, _))| {
                        if null_as_is && v == "NULL" {
                            format!("{q}{c} {}", kw("IS NULL"))
                        } else {
                            format!("{q}{c} = {v}")
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(sep)
            };
            let and = format!(" {} ", kw("and"));
            let sql = match k {
                0 => format!(
                    "{} \"S\".\"T\"({}) {} ({});",
                    kw("insert into"),
                    cols.join(","),
                    kw("values"),
                    lits.iter()
                        .map(|(v, _)| v.as_str())
                        .collect::<Vec<_>>()
                        .join(",\n")
                ),
                1 => format!(
                    "{} \"S\".\"T\"{alias} {} {} {} {}{and}{q}ROWID = 'AAAR3s';",
                    kw("update"),
                    kw("set"),
                    pairs(", ", false),
                    kw("where"),
                    pairs(&and, true)
                ),
                _ => format!(
                    "{} \"S\".\"T\"{alias} {} {}",
                    kw("delete from"),
                    kw("where"),
                    pairs(&and, true)
                ),
            };
            (sql, lits.into_iter().map(|(_, f)| f).collect())
        })
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,200}") {
        let _ = parse(&s).map(|st| (st.before_image(), st.after_image()));
    }

    #[test]
    fn arbitrary_sqlish_text_never_panics(s in "[ \"'(),;=|a-zA-Z0-9.\\\\_#-]{0,120}") {
        if let Err(e) = parse(&s) {
            prop_assert!(e.position <= s.len());
            prop_assert_eq!(e.raw, s.clone());
        }
    }

    #[test]
    fn generated_statements_parse_to_the_canonical_values((sql, expected) in statement_strategy()) {
        let st = parse(&sql).map_err(|e| TestCaseError::fail(format!("{e}: {sql}")))?;
        let image = match st.kind {
            DmlKind::Insert => st.after_image(),
            DmlKind::Update => {
                prop_assert_eq!(st.after_image(), st.before_image());
                st.before_image()
            }
            DmlKind::Delete => st.before_image(),
        };
        let got: Vec<Field> = image
            .unwrap_or_default()
            .iter()
            .map(|(_, f)| f.to_field())
            .collect();
        prop_assert_eq!(got, expected);
    }

    #[test]
    fn relaxed_quotes_never_panic_and_recover_every_value_whole(
        (sql, _) in statement_strategy(),
        garble in any::<prop::sample::Index>(),
    ) {
        if let Err(e) = parse_with(&sql, RELAXED) {
            prop_assert!(false, "{e}: {sql}");
        }
        // Undouble one doubled quote: the relaxed reading either recovers
        // a whole value or refuses, within the input.
        let pairs: Vec<usize> = sql.match_indices("''").map(|(i, _)| i).collect();
        if !pairs.is_empty() {
            let at = pairs[garble.index(pairs.len())];
            let mut broken = sql.clone();
            broken.remove(at);
            if let Err(e) = parse_with(&broken, RELAXED) {
                prop_assert!(e.position <= broken.len());
            }
        }
    }

    #[test]
    fn mutated_statements_never_panic(
        (sql, _) in statement_strategy(),
        cut in any::<prop::sample::Index>(),
        insert in any::<prop::sample::Index>(),
        byte in prop::sample::select(vec!["'", "\"", "(", ")", ",", "||", ";", " and ", "\\", "中", "", "/*", "*/", " a.", "."]),
    ) {
        let mut chars: Vec<char> = sql.chars().collect();
        let cut_at = cut.index(chars.len());
        chars.remove(cut_at);
        let mut mutated: String = chars.into_iter().collect();
        let mut at = insert.index(mutated.len() + 1);
        while !mutated.is_char_boundary(at) {
            at -= 1;
        }
        mutated.insert_str(at, byte);
        if let Err(e) = parse(&mutated) {
            prop_assert!(e.position <= mutated.len());
        }
    }
}

#[test]
fn images_located_in_the_statement_equal_images_of_each_value_converted_alone() {
    let statements = [
        r#"insert into "S"."T"("A","B","C","D") values ('it''s',UNISTR('caf\00E9'),HEXTORAW('0AbC'),TO_TIMESTAMP_TZ('2025-03-01 08:11:06.894032000 +08:00'));"#,
        r#"update "S"."T" set "A" = 'x''y', "E" = HEXTORAW('ff') where "A" = 'a''''b' and "B" IS NULL and "C" = HEXTORAW('0A0b') and "D" = TO_DATE('2025-02-15 10:22:37', 'YYYY-MM-DD HH24:MI:SS') and ROWID = 'AAAS';"#,
        r#"delete from "S"."T" where "A" = 'q' || UNISTR('\00E9') and "B" = TO_YMINTERVAL('+01-02') and "C" = EMPTY_CLOB();"#,
        // Dates and timestamps become ISO in the images' copy of the
        // statement: shared by both images, an empty fraction, a zone.
        r#"update "S"."T" set "D" = TO_TIMESTAMP('2025-03-01 09:00:00.5'), "E" = TO_TIMESTAMP('2025-03-01 09:00:00.') where "D" = TO_TIMESTAMP('2025-03-01 09:00:00.') and "E" = TO_DATE('2025-02-15 10:22:37', 'YYYY-MM-DD HH24:MI:SS') and "F" = TO_TIMESTAMP('2025-03-01 09:00:00.123456789') and "G" = TO_TIMESTAMP_TZ('2025-03-01 08:11:06.8 -02:30');"#,
        r#"UPDATE "S"."T" SET "DAY" = DATE'2026-01-03' WHERE "DAY" = DATE'2026-01-02' AND "STAMP" = TIMESTAMP'2026-01-02 10:20:30.123456' AND "T" = TIME'10:20:30.'"#,
    ];
    // The images as they were built before they shared the statement's
    // text: a name and a converted value per column, an UPDATE's SET over
    // its WHERE.
    fn reference(stmt: &Statement<'_>) -> (Option<Image>, Option<Image>) {
        let owned = |pairs: &[Pair<'_>]| -> Image {
            pairs.iter().map(|(c, v)| (*c, v.to_field())).collect()
        };
        match stmt.kind {
            DmlKind::Insert => (None, Some(owned(stmt.assigned()))),
            DmlKind::Delete => (Some(owned(stmt.matched())), None),
            DmlKind::Update => {
                let before = owned(stmt.matched());
                let mut after = before.clone();
                for (c, v) in stmt.assigned() {
                    after.set(c, &v.to_field());
                }
                (Some(before), Some(after))
            }
        }
    }
    for sql in statements {
        let stmt = parse(sql).unwrap();
        let expected = reference(&stmt);
        assert_eq!(stmt.images(), expected, "{sql}");
        let owned = stmt.locate().into_images(sql.to_string());
        assert_eq!(owned, expected, "{sql}");
    }
}

/// `redo parse` writes the after image from `after_pairs`, the engine from
/// the located image: the two must agree, SET columns the WHERE lacks and
/// a column SET twice included.
#[test]
fn after_pairs_give_the_after_image_column_for_column() {
    let statements = [
        INSERT,
        UPDATE,
        DELETE,
        r#"update "A"."T" set "X" = '2', "Y" = '3', "X" = '4' where "ID" = '1' and "X" = '0'"#,
        r#"update "A"."T" set "Z" = TO_DATE('2025-03-01 09:00:00', 'YYYY-MM-DD HH24:MI:SS'), "Z" = NULL where "ID" = '1'"#,
    ];
    for sql in statements {
        let s = parse(sql).unwrap();
        let from_pairs: Option<Image> = s
            .after_pairs()
            .map(|pairs| pairs.map(|(c, v)| (c, v.to_field())).collect());
        assert_eq!(from_pairs, s.after_image(), "{sql}");
        let before: Option<Image> = s
            .before_pairs()
            .map(|p| p.iter().map(|(c, v)| (*c, v.to_field())).collect());
        assert_eq!(before, s.before_image(), "{sql}");
    }
}
