//! Properties over generated and mutated statements: no panic, canonical
//! values, relaxed recovery whole, and images located in the statement
//! equal to images built value by value.

use proptest::prelude::*;

use super::*;

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
