//! What the parser reports besides images: ROWID, partial before images,
//! dictionary mismatches and rows LogMiner could not rebuild.

use super::*;

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
