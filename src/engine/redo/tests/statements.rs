//! Statement shapes: INSERT, UPDATE and DELETE into before and after
//! images, keywords and whitespace, strings holding SQL punctuation,
//! borrowed values, error positions and table aliases.

use super::*;

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
