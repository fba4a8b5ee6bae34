//! DM8's SQL_REDO dialect, from statements written to DM8's documented
//! forms (identifiers quoted, keywords upper case, typed literals, unquoted
//! numbers, `0x` bytes, `OUT_CLOB`), each pinned to its exact images.

use super::csf::{assemble, AssembleError};
use super::*;
use crate::engine::event::Field;
use crate::engine::row::LogMinerRow;

fn text(s: &str) -> Field {
    Field::text(s)
}

fn bin(s: &str) -> Field {
    Field::Binary(s.to_string())
}

fn image(pairs: &[(&str, Field)]) -> Image {
    pairs
        .iter()
        .map(|(c, f)| ((*c).to_string(), f.clone()))
        .collect()
}

/// The canonical value of a one-column DM8 insert.
fn one(literal: &str) -> Field {
    let sql = format!(r#"INSERT INTO "S"."T"("C") VALUES({literal})"#);
    let image = parse(&sql)
        .unwrap_or_else(|e| panic!("{literal}: {e}"))
        .after_image()
        .unwrap();
    assert_eq!(image.len(), 1);
    image.to_vec()[0].1.clone()
}

/// The error a one-column DM8 insert of `literal` gives.
fn refused(literal: &str) -> ParseError {
    let sql = format!(r#"INSERT INTO "S"."T"("C") VALUES({literal})"#);
    match parse(&sql) {
        Ok(s) => panic!("{literal} parsed as {:?}", s.after_image()),
        Err(e) => e,
    }
}

fn lob_findings(s: &Statement<'_>) -> Vec<(String, String, String)> {
    s.findings()
        .iter()
        .filter_map(|f| match f {
            Finding::LobNotLogged {
                schema,
                table,
                column,
            } => Some((schema.clone(), table.clone(), column.clone())),
            _ => None,
        })
        .collect()
}

const INSERT_ALL_FORMS: &str = concat!(
    r#"INSERT INTO "SHOP"."ITEMS"("ID","RATIO","PRICE","DELTA","NAME","DAY","AT_TIME","STAMP","STAMP_TZ","PHOTO","BODY","NOTES","GONE") "#,
    r#"VALUES(9223372036854775807,3.14159E0,1234.5678,-1.5,'中文 O''Brien',DATE'2026-01-02',TIME'10:20:30',"#,
    r#"TIMESTAMP'2026-01-02 10:20:30.123456',TIMESTAMP'2026-01-02 10:20:30.123456 +08:00',0x00010203,"#,
    r#"OUT_CLOB,OUT_CLOB(LOB_ID: 525301),NULL)"#
);

#[test]
fn dm8_insert_with_every_literal_form_gives_the_exact_after_image() {
    let s = parse(INSERT_ALL_FORMS).unwrap();
    assert_eq!(s.kind, DmlKind::Insert);
    assert_eq!((s.schema(), s.table()), ("SHOP", "ITEMS"));
    assert_eq!(s.before_image(), None);
    let expected = image(&[
        ("ID", text("9223372036854775807")),
        ("RATIO", text("3.14159E0")),
        ("PRICE", text("1234.5678")),
        ("DELTA", text("-1.5")),
        ("NAME", text("中文 O'Brien")),
        ("DAY", text("2026-01-02T00:00:00")),
        ("AT_TIME", text("10:20:30")),
        ("STAMP", text("2026-01-02T10:20:30.123456")),
        ("STAMP_TZ", text("2026-01-02T02:20:30.123456Z")),
        ("PHOTO", bin("00010203")),
        ("BODY", Field::Unavailable),
        ("NOTES", Field::Unavailable),
        ("GONE", Field::Null),
    ]);
    assert_eq!(s.after_image().unwrap(), expected);
    assert_eq!(s.images(), (None, Some(expected)));
    assert_eq!(
        lob_findings(&s),
        [
            ("SHOP".into(), "ITEMS".into(), "BODY".into()),
            ("SHOP".into(), "ITEMS".into(), "NOTES".into())
        ]
    );
    assert_eq!(s.findings().len(), 2, "{:?}", s.findings());
}

#[test]
fn dm8_update_before_is_the_full_where_image_with_is_null_and_after_merges_set() {
    let sql = concat!(
        r#"UPDATE "S"."T" SET "C" = 'new', "D" = 9999.0001 "#,
        r#"WHERE "ID" = 1 AND "C" = 'old' AND "D" = 1.5 AND "DAY" = DATE'2026-01-02' "#,
        r#"AND "STAMP" = TIMESTAMP'2026-01-02 10:20:30.123456' AND "B" = 0x0A0B AND "E" IS NULL"#
    );
    let s = parse(sql).unwrap();
    assert_eq!(s.kind, DmlKind::Update);
    let before = image(&[
        ("ID", text("1")),
        ("C", text("old")),
        ("D", text("1.5")),
        ("DAY", text("2026-01-02T00:00:00")),
        ("STAMP", text("2026-01-02T10:20:30.123456")),
        ("B", bin("0a0b")),
        ("E", Field::Null),
    ]);
    let after = image(&[
        ("ID", text("1")),
        ("C", text("new")),
        ("D", text("9999.0001")),
        ("DAY", text("2026-01-02T00:00:00")),
        ("STAMP", text("2026-01-02T10:20:30.123456")),
        ("B", bin("0a0b")),
        ("E", Field::Null),
    ]);
    assert_eq!(s.before_image().unwrap(), before);
    assert_eq!(s.after_image().unwrap(), after);
    assert_eq!(s.row_id(), None);
    assert!(s.findings().is_empty(), "{:?}", s.findings());
    assert_eq!(s.images(), (Some(before), Some(after)));
}

#[test]
fn dm8_delete_before_is_the_full_where_image_of_every_form() {
    let sql = concat!(
        r#"DELETE FROM "S"."T" WHERE "ID" = 1 AND "C" = 'it''s 中文' AND "DAY" = DATE'2026-01-02' "#,
        r#"AND "AT" = TIME'10:20:30' AND "TZ" = TIMESTAMP'2026-01-02 10:20:30.123456 +08:00' "#,
        r#"AND "BIG" = 9223372036854775807 AND "R" = 3.14159E0 AND "B" = 0x00010203 "#,
        r#"AND "L" = OUT_CLOB AND "E" IS NULL"#
    );
    let s = parse(sql).unwrap();
    assert_eq!(s.kind, DmlKind::Delete);
    assert_eq!(s.after_image(), None);
    assert_eq!(
        s.before_image().unwrap(),
        image(&[
            ("ID", text("1")),
            ("C", text("it's 中文")),
            ("DAY", text("2026-01-02T00:00:00")),
            ("AT", text("10:20:30")),
            ("TZ", text("2026-01-02T02:20:30.123456Z")),
            ("BIG", text("9223372036854775807")),
            ("R", text("3.14159E0")),
            ("B", bin("00010203")),
            ("L", Field::Unavailable),
            ("E", Field::Null),
        ])
    );
    assert_eq!(lob_findings(&s), [("S".into(), "T".into(), "L".into())]);
}

#[test]
fn dm8_timestamp_with_offset_is_the_utc_instant() {
    assert_eq!(
        one("TIMESTAMP'2026-01-02 10:20:30.123456 +08:00'"),
        text("2026-01-02T02:20:30.123456Z")
    );
    // Across midnight and the year, backwards and forwards.
    assert_eq!(
        one("TIMESTAMP'2026-01-01 03:00:00.000001 +08:00'"),
        text("2025-12-31T19:00:00.000001Z")
    );
    assert_eq!(
        one("TIMESTAMP'2025-12-31 22:00:00 -05:30'"),
        text("2026-01-01T03:30:00Z")
    );
    assert_eq!(
        one("TIMESTAMP'2024-02-29 00:30:00.5 +01:00'"),
        text("2024-02-28T23:30:00.5Z")
    );
    // The same instant as Oracle's TO_TIMESTAMP_TZ gives, so the envelope
    // is shared.
    assert_eq!(
        one("TIMESTAMP'2026-01-02 10:20:30.123456 +08:00'"),
        one("TO_TIMESTAMP_TZ('2026-01-02 10:20:30.123456 +08:00')")
    );
}

#[test]
fn dm8_date_is_midnight_and_time_and_timestamp_keep_their_digits() {
    assert_eq!(one("DATE'2026-01-02'"), text("2026-01-02T00:00:00"));
    assert_eq!(one("DATE'2024-02-29'"), text("2024-02-29T00:00:00"));
    assert_eq!(one("TIME'10:20:30'"), text("10:20:30"));
    assert_eq!(one("TIME'23:59:59.999999'"), text("23:59:59.999999"));
    assert_eq!(one("TIME'00:00:00.'"), text("00:00:00.0"));
    assert_eq!(
        one("TIMESTAMP'2026-01-02 10:20:30.123456'"),
        text("2026-01-02T10:20:30.123456")
    );
    assert_eq!(
        one("TIMESTAMP'2026-01-02 10:20:30'"),
        text("2026-01-02T10:20:30")
    );
    // DM8's DATE has no time, but a date and time is as unambiguous.
    assert_eq!(
        one("DATE'2026-01-02 10:20:30'"),
        text("2026-01-02T10:20:30")
    );
    assert_eq!(
        one("DATE'2026-01-02'"),
        one("TO_DATE('2026-01-02 00:00:00', 'YYYY-MM-DD HH24:MI:SS')")
    );
}

#[test]
fn dm8_typed_literals_take_any_keyword_case_and_whitespace_before_the_quote() {
    assert_eq!(one("date'2026-01-02'"), text("2026-01-02T00:00:00"));
    assert_eq!(one("DATE '2026-01-02'"), text("2026-01-02T00:00:00"));
    assert_eq!(one("Time\t'10:20:30'"), text("10:20:30"));
    assert_eq!(
        one("timestamp\n  '2026-01-02 10:20:30.1 +08:00'"),
        text("2026-01-02T02:20:30.1Z")
    );
    let s = parse(concat!(
        r#"update "S"."T" set "D" = date '2026-01-03' "#,
        r#"where "ID" = 1 and "D" = Date'2026-01-02' and "E" is null;"#
    ))
    .unwrap();
    assert_eq!(
        s.after_image().unwrap(),
        image(&[
            ("ID", text("1")),
            ("D", text("2026-01-03T00:00:00")),
            ("E", Field::Null)
        ])
    );
}

#[test]
fn dm8_unquoted_numbers_keep_their_exact_text() {
    for n in [
        "9223372036854775807",
        "-9223372036854775808",
        "3.14159E0",
        "-1.5",
        "1234.5678",
        "0",
        "0.5",
        "00",
        "1E-7",
    ] {
        assert_eq!(one(n), text(n));
    }
}

#[test]
fn dm8_binary_is_lower_case_bytes_and_never_taken_for_character_hex() {
    assert_eq!(one("0x00010203"), bin("00010203"));
    assert_eq!(one("0X0A0B"), bin("0a0b"));
    assert_eq!(one("0xabCDef"), bin("abcdef"));
    assert_eq!(one("0x"), bin(""));
    let mut s = parse(r#"INSERT INTO "S"."T"("B","C") VALUES(0xE4B8AD,'中')"#).unwrap();
    s.decode_character_hex(None);
    assert!(s.findings().is_empty(), "{:?}", s.findings());
    assert_eq!(
        s.images().1.unwrap(),
        image(&[("B", bin("e4b8ad")), ("C", text("中"))])
    );
}

#[test]
fn dm8_out_clob_is_unavailable_with_a_lob_not_logged_finding_once_per_column() {
    assert_eq!(one("OUT_CLOB"), Field::Unavailable);
    assert_eq!(one("OUT_CLOB(LOB_ID: 525301)"), Field::Unavailable);
    assert_eq!(one("out_clob ( lob_id :525301 )"), Field::Unavailable);
    let s = parse(concat!(
        r#"UPDATE "S"."DOCS" SET "BODY" = OUT_CLOB(LOB_ID: 2), "N" = 2 "#,
        r#"WHERE "ID" = 1 AND "BODY" = OUT_CLOB(LOB_ID: 1) AND "N" = 1"#
    ))
    .unwrap();
    assert_eq!(
        s.before_image().unwrap(),
        image(&[
            ("ID", text("1")),
            ("BODY", Field::Unavailable),
            ("N", text("1"))
        ])
    );
    assert_eq!(
        s.after_image().unwrap(),
        image(&[
            ("ID", text("1")),
            ("BODY", Field::Unavailable),
            ("N", text("2"))
        ])
    );
    assert_eq!(
        lob_findings(&s),
        [("S".into(), "DOCS".into(), "BODY".into())]
    );
    let f = &s.findings()[0];
    assert_eq!(f.code(), "lob_not_logged");
    let message = f.message();
    assert!(
        message.starts_with("S.DOCS.BODY: DM8 never writes the content"),
        "{message}"
    );
    assert!(message.contains("OUT_CLOB"), "{message}");
}

#[test]
fn dm8_chinese_text_and_doubled_quotes_are_exact() {
    assert_eq!(one("'达梦数据库'"), text("达梦数据库"));
    assert_eq!(one("'''引号'' and ''q'''"), text("'引号' and 'q'"));
    assert_eq!(one("'a,b) AND \"X\" = 1'"), text("a,b) AND \"X\" = 1"));
    assert_eq!(one("''"), text(""));
}

/// `sql` cut into pieces of at most `max` bytes on character boundaries,
/// as DM8 splits a long SQL_REDO: one SCN, SSN 0, 1, 2, ..., CSF = 1 on
/// every piece but the last.
fn dm8_pieces(sql: &str, max: usize, scn: u64) -> Vec<LogMinerRow> {
    let mut cuts = vec![0];
    let mut at = 0;
    while sql.len() - at > max {
        let mut end = at + max;
        while !sql.is_char_boundary(end) {
            end -= 1;
        }
        cuts.push(end);
        at = end;
    }
    cuts.push(sql.len());
    let n = cuts.len() - 1;
    (0..n)
        .map(|i| LogMinerRow {
            scn,
            xid: "000000000000468B".into(),
            ssn: i as u64,
            csf: i + 1 < n,
            sql_redo: Some(sql[cuts[i]..cuts[i + 1]].to_string()),
            ..LogMinerRow::default()
        })
        .collect()
}

#[test]
fn dm8_wide_statement_split_in_csf_pieces_parses_to_the_exact_images() {
    let columns = 60;
    let names: Vec<String> = (0..columns).map(|i| format!("\"COL_{i}\"")).collect();
    let values: Vec<String> = (0..columns)
        .map(|i| match i % 4 {
            0 => format!("'第{i}行 it''s {}'", "达梦".repeat(100)),
            1 => format!("TIMESTAMP'2026-01-02 10:20:{:02}.123456 +08:00'", i % 60),
            2 => format!("0x{}", "0A".repeat(200)),
            _ => format!("{i}.5E0"),
        })
        .collect();
    let sql = format!(
        r#"INSERT INTO "S"."WIDE"({}) VALUES({})"#,
        names.join(","),
        values.join(",")
    );
    assert!(
        sql.len() > 3 * 4000,
        "the statement must need several pieces"
    );
    let rows = dm8_pieces(&sql, 4000, 77);
    assert!(rows.len() >= 4);
    let joined: Vec<_> = assemble(rows.into_iter().map(Ok::<_, std::io::Error>)).collect();
    assert_eq!(joined.len(), 1);
    let row = match &joined[0] {
        Ok(row) => row,
        Err(e) => panic!("{e}"),
    };
    assert_eq!((row.scn, row.ssn, row.csf), (77, 0, false));
    assert_eq!(row.sql_redo.as_deref(), Some(sql.as_str()));
    let after = parse(&sql).unwrap().after_image().unwrap();
    let expected: Image = (0..columns)
        .map(|i| {
            let field = match i % 4 {
                0 => text(&format!("第{i}行 it's {}", "达梦".repeat(100))),
                1 => text(&format!("2026-01-02T02:20:{:02}.123456Z", i % 60)),
                2 => bin(&"0a".repeat(200)),
                _ => text(&format!("{i}.5E0")),
            };
            (format!("COL_{i}"), field)
        })
        .collect();
    assert_eq!(after, expected);
}

#[test]
fn dm8_piece_that_skips_an_ssn_breaks_the_chain_and_is_reported() {
    let sql = format!(r#"INSERT INTO "S"."T"("C") VALUES('{}')"#, "x".repeat(30));
    let mut rows = dm8_pieces(&sql, 16, 5);
    assert!(rows.len() >= 3);
    rows[2].ssn = 3;
    let out: Vec<_> = assemble(rows.into_iter().map(Ok::<_, std::io::Error>)).collect();
    assert!(
        matches!(
            out.first(),
            Some(Err(AssembleError::Csf(super::csf::CsfError::Interleaved {
                found_ssn: 3,
                ..
            })))
        ),
        "{out:?}"
    );
}

#[test]
fn dm8_next_ssn_at_another_scn_is_not_a_piece_of_the_chain() {
    let sql = format!(r#"INSERT INTO "S"."T"("C") VALUES('{}')"#, "x".repeat(30));
    let mut rows = dm8_pieces(&sql, 16, 5);
    rows[1].scn = 6;
    let out: Vec<_> = assemble(rows.into_iter().map(Ok::<_, std::io::Error>)).collect();
    assert!(
        matches!(
            out.first(),
            Some(Err(AssembleError::Csf(super::csf::CsfError::Interleaved {
                found_scn: 6,
                ..
            })))
        ),
        "{out:?}"
    );
}

/// The error names the column and shows the literal as written.
fn assert_names(e: &ParseError, literal: &str) {
    assert!(
        e.message.starts_with("column \"C\": "),
        "{literal}: {}",
        e.message
    );
    assert!(e.message.contains(literal), "{literal}: {}", e.message);
}

#[test]
fn dm8_impossible_dates_and_times_are_errors_naming_column_and_literal() {
    for literal in [
        "DATE'2026-13-45'",
        "DATE'2026-02-29'",
        "DATE'2026-00-10'",
        "DATE'2026-1-2'",
        "DATE''",
        "TIME'25:00:00'",
        "TIME'10:60:00'",
        "TIME'10:20'",
        "TIMESTAMP'2026-04-31 00:00:00'",
        "TIMESTAMP'2026-01-02 24:00:00'",
        "TIMESTAMP'2026-01-02 10:20:30 +15:00'",
        "TIMESTAMP'2026-01-02 10:20:30.1234567890'",
    ] {
        let e = refused(literal);
        assert_names(&e, literal);
        assert_eq!(e.position, 32, "{literal}: points at the literal");
    }
    let e = refused("DATE'2026-13-45'");
    assert_eq!(
        e.message,
        "column \"C\": DATE'2026-13-45' is not a valid date: expected DATE'YYYY-MM-DD', \
         a day that exists"
    );
}

#[test]
fn dm8_nonsense_timestamp_is_an_error_naming_column_and_literal() {
    let e = refused("TIMESTAMP'nonsense'");
    assert_names(&e, "TIMESTAMP'nonsense'");
    assert!(e.message.contains("YYYY-MM-DD HH:MI:SS"), "{}", e.message);
    assert_names(&refused("INTERVAL'1'"), "INTERVAL'1'");
}

#[test]
fn dm8_bad_hex_is_an_error_naming_column_and_literal() {
    for (literal, why) in [
        ("0xZZ", "not hex"),
        ("0x0G", "not hex"),
        ("0x123", "odd number"),
        ("0x0", "odd number"),
    ] {
        let e = refused(literal);
        assert_names(&e, literal);
        assert!(e.message.contains(why), "{literal}: {}", e.message);
    }
}

#[test]
fn dm8_unterminated_literal_is_an_error_naming_column_and_literal() {
    let e = refused("DATE'2026");
    assert_names(&e, "DATE'2026");
    assert!(e.message.contains("never ends"), "{}", e.message);
    let e = parse(r#"DELETE FROM "S"."T" WHERE "C" = TIMESTAMP '2026-01-02"#).unwrap_err();
    assert!(e.message.starts_with("column \"C\": "), "{}", e.message);
    assert!(e.message.contains("'2026-01-02"), "{}", e.message);
}

#[test]
fn dm8_malformed_out_clob_is_an_error_not_a_placeholder() {
    for literal in [
        "OUT_CLOB(",
        "OUT_CLOB()",
        "OUT_CLOB(LOB_ID: x)",
        "OUT_CLOB(LOB_ID 1)",
        "OUT_BLOB",
    ] {
        let e = refused(literal);
        assert!(
            e.message.starts_with("column \"C\": "),
            "{literal}: {}",
            e.message
        );
    }
    // Its `)` closes OUT_CLOB( and the value list is left open.
    let e = refused("OUT_CLOB(LOB_ID: 1");
    assert!(e.message.contains("close the value list"), "{}", e.message);
}

#[test]
fn dm8_quote_after_a_typed_literal_is_an_unescaped_quote_error() {
    let e = refused("DATE'2026-01-02'x'");
    assert!(e.message.contains("unescaped quote"), "{}", e.message);
}

proptest::proptest! {
    #[test]
    fn dm8_typed_literals_with_any_text_never_panic_and_errors_point_into_the_input(
        keyword in "(DATE|TIME|TIMESTAMP|date|Timestamp|OUT_CLOB|0x)",
        body in "[0-9 :.+\\-a-zA-Z'()]{0,32}",
    ) {
        let literal = if keyword == "0x" || keyword == "OUT_CLOB" {
            format!("{keyword}{body}")
        } else {
            format!("{keyword}'{body}'")
        };
        let sql = format!(r#"INSERT INTO "S"."T"("C") VALUES({literal})"#);
        match parse(&sql) {
            Ok(s) => {
                let image = s.after_image().unwrap();
                proptest::prop_assert_eq!(image.len(), 1);
            }
            Err(e) => {
                proptest::prop_assert!(e.position <= sql.len());
                proptest::prop_assert_eq!(e.raw, sql);
            }
        }
    }
}
