//! Literals into canonical values: numbers, dates and timestamps, native
//! JSON, comments, RAW, UNISTR, concatenations, LOBs, intervals and types
//! LogMiner cannot show.

use super::*;

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
fn native_json_binary_oson_gives_its_json_text_without_a_finding() {
    // `{"a":1}` as python-oracledb's encoder writes it.
    let oson = "FF4A5A012106010002000B00002C00000161A40101000000073402C102";
    let sql = format!(
        r#"update "APP"."DOCS" set "DOC" = /* JSON */ HEXTORAW('{oson}') where "ID" = '1'"#
    );
    let s = parse(&sql).unwrap();
    assert_eq!(
        s.after_image().unwrap().get_field("DOC"),
        Some(text(r#"{"a":1}"#))
    );
    assert!(json_findings(&s).is_empty());
}

#[test]
fn native_json_oson_that_does_not_decode_is_unavailable_with_a_finding_once_per_column() {
    // A header cut short, and a vector (the extended type 0x7B) cdcctl
    // does not decode.
    let cut = "FF4A5A0121060000000100";
    let vector = "ff4a5a01001600077b010000000100";
    let sql = format!(
        r#"update "APP"."DOCS" set "DOC" = /* JSON */ HEXTORAW('{cut}') where "ID" = '1' and "DOC" = /*JSON*/HEXTORAW('{vector}')"#
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
