//! The snapshot's reads: choosing a key, cutting chunks and binding their
//! bounds, and the tables it refuses.

use super::*;

fn read<'a>(
    owner: &'a str,
    table: &'a str,
    columns: &'a [SnapshotColumn],
    key: &'a SnapshotKey,
    after_key: Option<&'a [String]>,
    limit: usize,
) -> sql::SnapshotRead<'a> {
    sql::SnapshotRead {
        owner,
        table,
        columns,
        key,
        after_key,
        limit,
        as_of_scn: 777,
        extent: None,
    }
}

fn orders_columns() -> Vec<SnapshotColumn> {
    vec![
        col("ORDER_ID", ValueKind::Number),
        col("LINE", ValueKind::Number),
        col("STATUS", ValueKind::Text),
        col("ORDER_DATE", ValueKind::Date),
        col("UPDATED", ValueKind::Timestamp),
        col("AT_TZ", ValueKind::TimestampTz),
        col("TAG", ValueKind::Raw),
        col("PHOTO", ValueKind::Blob),
    ]
}

#[test]
fn snapshot_chunk_statements_are_pinned() {
    let columns = orders_columns();
    let key = SnapshotKey::Columns(vec![
        col("ORDER_ID", ValueKind::Number),
        col("LINE", ValueKind::Number),
    ]);
    let after = vec!["1001".to_string(), "3".to_string()];
    let mut out = String::new();
    let cases: [(&str, Option<&[String]>, &SnapshotKey, u32); 5] = [
        ("first chunk, 19c", None, &key, 19),
        ("next chunk, 19c", Some(&after), &key, 19),
        ("next chunk, 11g", Some(&after), &key, 11),
        ("rowid key, first chunk", None, &SnapshotKey::RowId, 19),
        (
            "rowid key, next chunk",
            Some(&after[..1]),
            &SnapshotKey::RowId,
            19,
        ),
    ];
    for (title, after_key, key, version) in cases {
        let read = read("APP", "ORDERS", &columns, key, after_key, 5000);
        let b = sql::snapshot_chunk(&read, version).expect("quotable names");
        out.push_str(&format!("-- {title}\n{}\n", bound_text(&b)));
    }
    snap!("oracle_snapshot_chunk", out);
}

/// Where a reader side by side starts: the key of the n-th row past the
/// group's start, read from the key columns alone (the index), with the
/// same access predicate as the chunk, and ROWNUM since 11g has no OFFSET.
#[test]
fn snapshot_key_after_statements_are_pinned_issue33() {
    let key_columns = vec![
        col("ORDER_ID", ValueKind::Number),
        col("LINE", ValueKind::Number),
    ];
    let key = SnapshotKey::Columns(key_columns.clone());
    let after = ["1001".to_string(), "3".to_string()];
    let mut out = String::new();
    for (title, after_key) in [
        ("from the table's start", None),
        ("after a key", Some(&after[..])),
    ] {
        let read = read("APP", "ORDERS", &key_columns, &key, after_key, 5000);
        let b = sql::snapshot_key_after(&read, 10000).expect("quotable names");
        out.push_str(&format!("-- {title}\n{}\n", bound_text(&b)));
    }
    snap!("oracle_snapshot_key_after", out);
}

#[test]
fn snapshot_chunk_refuses_unquotable_names() {
    let columns = vec![col("A", ValueKind::Number)];
    let key = SnapshotKey::Columns(columns.clone());
    let bad_table = read("APP", "X\"; DROP", &columns, &key, None, 1);
    assert!(sql::snapshot_chunk(&bad_table, 19).is_none());
    let bad_column = [col("B\"", ValueKind::Text)];
    assert!(sql::snapshot_chunk(&read("APP", "T", &bad_column, &key, None, 1), 19).is_none());
}

#[test]
fn snapshot_key_values_are_bound_not_pasted() {
    let columns = vec![col("NAME", ValueKind::Text)];
    let key = SnapshotKey::Columns(columns.clone());
    let after = vec!["O'Brien) OR 1=1 --".to_string()];
    let b = sql::snapshot_chunk(&read("APP", "T", &columns, &key, Some(&after), 10), 19)
        .expect("quotable");
    assert!(!b.text.contains("O'Brien"));
    assert!(b
        .binds
        .iter()
        .any(|(n, v)| n == "k1" && *v == sql::BindValue::Text(after[0].clone())));
}

fn text_rows(rows: &[&[Option<&str>]]) -> Vec<Vec<Option<String>>> {
    rows.iter()
        .map(|r| r.iter().map(|v| v.map(str::to_string)).collect())
        .collect()
}

fn orders() -> TableName {
    TableName {
        owner: "APP".into(),
        table: "ORDERS".into(),
    }
}

#[test]
fn snapshot_key_prefers_the_primary_key() {
    let cols = text_rows(&[
        &[
            Some("ID"),
            Some("NUMBER"),
            None,
            Some("N"),
            None,
            None,
            None,
            Some("NO"),
            Some("NO"),
            Some("NO"),
        ],
        &[
            Some("REF"),
            Some("VARCHAR2"),
            None,
            Some("N"),
            None,
            None,
            None,
            Some("NO"),
            Some("NO"),
            Some("NO"),
        ],
        &[
            Some("SYS_NC0001$"),
            Some("NUMBER"),
            None,
            Some("Y"),
            None,
            None,
            None,
            Some("YES"),
            Some("YES"),
            Some("NO"),
        ],
    ]);
    let keys = text_rows(&[
        &[Some("PK"), Some("P"), Some("ENABLED"), Some("ID")],
        &[Some("UK"), Some("U"), Some("ENABLED"), Some("REF")],
    ]);
    let meta = snapshot_meta_from_rows(&orders(), &cols, &keys).unwrap();
    assert_eq!(meta.columns.len(), 2, "hidden columns are left out");
    assert_eq!(
        meta.key,
        SnapshotKey::Columns(vec![col("ID", ValueKind::Number)])
    );
}

#[test]
fn snapshot_key_falls_back_to_not_null_unique_then_rowid() {
    let cols = text_rows(&[
        &[
            Some("A"),
            Some("NUMBER"),
            None,
            Some("Y"),
            None,
            None,
            None,
            Some("NO"),
            Some("NO"),
            Some("NO"),
        ],
        &[
            Some("B"),
            Some("VARCHAR2"),
            None,
            Some("N"),
            None,
            None,
            None,
            Some("NO"),
            Some("NO"),
            Some("NO"),
        ],
    ]);
    let keys = text_rows(&[
        &[Some("UK_A"), Some("U"), Some("ENABLED"), Some("A")],
        &[Some("UK_B"), Some("U"), Some("ENABLED"), Some("B")],
    ]);
    let meta = snapshot_meta_from_rows(&orders(), &cols, &keys).unwrap();
    assert_eq!(
        meta.key,
        SnapshotKey::Columns(vec![col("B", ValueKind::Text)])
    );
    let meta = snapshot_meta_from_rows(&orders(), &cols, &keys[..1]).unwrap();
    assert_eq!(
        meta.key,
        SnapshotKey::RowId,
        "nullable unique key cannot order"
    );
}

#[test]
fn snapshot_of_unknown_or_unreadable_tables_is_refused() {
    let err = snapshot_meta_from_rows(&orders(), &[], &[]).unwrap_err();
    assert!(matches!(err, SourceError::NotFound(_)), "{err:?}");
    let cols = text_rows(&[&[
        Some("DOC"),
        Some("XMLTYPE"),
        Some("SYS"),
        Some("Y"),
        None,
        None,
        None,
        Some("NO"),
        Some("NO"),
        Some("NO"),
    ]]);
    let err = snapshot_meta_from_rows(&orders(), &cols, &[]).unwrap_err();
    assert!(err.to_string().contains("DOC (XMLTYPE)"), "{err}");
}

#[test]
fn a_full_chunk_returns_its_last_key_and_a_short_one_ends_the_table() {
    let columns = vec![col("ID", ValueKind::Number), col("NAME", ValueKind::Text)];
    let key = SnapshotKey::Columns(vec![col("ID", ValueKind::Number)]);
    let rows = text_rows(&[&[Some("1"), Some("a")], &[Some("2"), None]]);
    let c = chunk_from_rows(&columns, &key, rows.clone(), 2).unwrap();
    assert_eq!(c.last_key, Some(vec!["2".to_string()]));
    assert_eq!(c.columns, vec!["ID", "NAME"]);
    let c = chunk_from_rows(&columns, &key, rows, 3).unwrap();
    assert_eq!(c.last_key, None);
    assert_eq!(c.rows.len(), 2);
}

#[test]
fn read_dates_and_timestamps_take_the_streams_form_and_the_key_keeps_the_reads_issue33() {
    let columns = vec![
        col("AT", ValueKind::Date),
        col("TS", ValueKind::Timestamp),
        col("TZ", ValueKind::TimestampTz),
    ];
    let key = SnapshotKey::Columns(vec![col("AT", ValueKind::Date)]);
    let rows = text_rows(&[&[
        Some("2025-03-28 09:00:01"),
        Some("2025-03-28 09:00:01.500000000"),
        Some("2025-03-28 11:00:01.000000000 +02:00"),
    ]]);
    let c = chunk_from_rows(&columns, &key, rows, 1).unwrap();
    assert_eq!(
        c.rows[0],
        [
            Some("2025-03-28T09:00:01".to_string()),
            Some("2025-03-28T09:00:01.500000000".to_string()),
            Some("2025-03-28T09:00:01.000000000Z".to_string()),
        ]
    );
    // Bound back with TO_DATE(:k1, 'YYYY-MM-DD HH24:MI:SS') by the next read.
    assert_eq!(c.last_key, Some(vec!["2025-03-28 09:00:01".to_string()]));
}

#[test]
fn rowid_keyed_chunks_hide_the_rowid_column() {
    let columns = vec![col("A", ValueKind::Number)];
    let rows = text_rows(&[&[Some("1"), Some("AAAR3sAAEAAAACXAAA")]]);
    let c = chunk_from_rows(&columns, &SnapshotKey::RowId, rows, 1).unwrap();
    assert_eq!(c.rows, vec![vec![Some("1".to_string())]]);
    assert_eq!(c.last_key, Some(vec!["AAAR3sAAEAAAACXAAA".to_string()]));
}

#[test]
fn resuming_with_a_key_of_the_wrong_width_is_refused() {
    let key = SnapshotKey::Columns(vec![
        col("ORDER_ID", ValueKind::Number),
        col("LINE", ValueKind::Number),
    ]);
    let one = vec!["1".to_string()];
    let two = vec!["1".to_string(), "2".to_string()];
    assert!(check_after_key(&orders(), &key, None).is_ok());
    assert!(check_after_key(&orders(), &key, Some(&two)).is_ok());
    let err = check_after_key(&orders(), &key, Some(&one)).unwrap_err();
    assert!(err.to_string().contains("APP.ORDERS"), "{err}");
    assert!(check_after_key(&orders(), &SnapshotKey::RowId, Some(&one)).is_ok());
}

#[test]
fn snapshot_chunks_without_a_key_read_one_extent_at_a_time() {
    let columns = vec![col("NOTE", ValueKind::Text), col("N", ValueKind::Number)];
    let key = SnapshotKey::RowId;
    let extent = sql::Extent {
        data_object_id: 73_196,
        relative_fno: 4,
        first_block: 128,
        last_block: 135,
    };
    let after = vec!["AAAR3sAAEAAAACCAAF".to_string()];
    let mut out = String::new();
    let cases: [(&str, Option<&[String]>, u32); 3] = [
        ("first chunk of an extent, 19c", None, 19),
        ("resumed inside the extent, 19c", Some(&after), 19),
        ("resumed inside the extent, 11.2", Some(&after), 11),
    ];
    for (title, after_key, version) in cases {
        let read = sql::SnapshotRead {
            extent: Some(&extent),
            ..read("APP", "AUDIT_LOG", &columns, &key, after_key, 5000)
        };
        let b = sql::snapshot_chunk(&read, version).expect("quotable names");
        assert!(b.text.contains("DBMS_ROWID.ROWID_CREATE"), "{}", b.text);
        out.push_str(&format!("-- {title}\n{}\n", bound_text(&b)));
    }
    snap!("oracle_snapshot_chunk_extents", out);
}

/// An `ALL_TAB_COLS` row of [`sql::TABLE_COLUMNS`] with its flags.
fn tab_col(
    name: &str,
    data_type: &str,
    hidden: &str,
    virt: &str,
    user: &str,
) -> Vec<Option<String>> {
    let mut row = vec![Some(name.to_string()), Some(data_type.to_string())];
    row.extend([None, Some("Y".to_string()), None, None, None]);
    row.extend([hidden, virt, user].map(|f| Some(f.to_string())));
    row
}

#[test]
fn invisible_columns_are_kept_in_snapshots() {
    let cols = vec![
        tab_col("ID", "NUMBER", "NO", "NO", "YES"),
        // ALTER TABLE ... ADD (NOTE VARCHAR2(20) INVISIBLE)
        tab_col("NOTE", "VARCHAR2", "YES", "NO", "YES"),
        // A function-based index's hidden virtual column
        tab_col("SYS_NC00003$", "NUMBER", "YES", "YES", "NO"),
        // A column SET UNUSED: hidden and no longer the user's
        tab_col("SYS_C00004_25112912:00:00$", "NUMBER", "YES", "NO", "NO"),
    ];
    let keys = text_rows(&[&[Some("PK"), Some("P"), Some("ENABLED"), Some("ID")]]);
    let meta = snapshot_meta_from_rows(&orders(), &cols, &keys).unwrap();
    let names: Vec<&str> = meta.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["ID", "NOTE"]);
}
