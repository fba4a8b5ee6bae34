//! Rows that are not plain changes: parse failures and dead letters,
//! MISSING_SCN, DDL, rows LogMiner could not rebuild, continuation pieces,
//! the source database name and columns kept as hex.

use super::*;

#[test]
fn parse_failure_stops_with_scn_xid_position_and_raw_text() {
    let mut bad = insert(2, A, 1);
    bad.sql_redo = Some("insert into \"APP\".\"ORDERS\"(\"A\") valuez ('1');".into());
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let noop = &mut |_| Ok(());
    buf.push(bad, noop).unwrap();
    let err = buf.push(commit(3, A), noop).unwrap_err();
    match err {
        TxnError::Parse {
            scn,
            xid,
            raw,
            position,
            ..
        } => {
            assert_eq!((scn, xid.as_str()), (2, A));
            assert!(raw.contains("valuez"));
            assert!(position > 0);
        }
        other => panic!("parse error expected, got {other}"),
    }
}

#[test]
fn parse_error_message_clips_a_huge_statement_but_keeps_it_whole() {
    let mut bad = insert(2, A, 1);
    let huge = format!(
        "insert into \"APP\".\"T\"(\"A\") valuez ('{}');",
        "é".repeat(5000)
    );
    bad.sql_redo = Some(huge.clone());
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let noop = &mut |_| Ok(());
    buf.push(bad, noop).unwrap();
    let err = buf.push(commit(3, A), noop).unwrap_err();
    let text = err.to_string();
    assert!(text.len() < 3000, "{} bytes", text.len());
    assert!(text.contains(&format!("({} bytes in all)", huge.len())));
    assert!(matches!(err, TxnError::Parse { raw, .. } if raw == huge));
}

#[test]
fn warn_mode_dead_letters_the_statement_and_continues() {
    let mut bad = insert(3, A, 2);
    bad.sql_redo = Some("garbage".into());
    let mut buf = TxnBuffer::new(BufferConfig {
        on_parse_error: OnParseError::Warn,
        ..BufferConfig::default()
    });
    let events = run(
        &mut buf,
        vec![insert(2, A, 1), bad, insert(4, A, 3), commit(5, A)],
    );
    assert_eq!(ids(&events), pairs(&[(A, "c1"), (A, "c3")]));
    let dead = buf.take_dead_letters();
    assert_eq!(dead.len(), 1);
    assert_eq!((dead[0].scn, dead[0].raw.as_str()), (3, "garbage"));
    assert_eq!(buf.stats().dead_letters, 1);
}

#[test]
fn missing_scn_row_is_an_error() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let err = buf
        .push(ctl(7, A, OperationCode::MissingScn), &mut |_| Ok(()))
        .unwrap_err();
    assert!(matches!(err, TxnError::MissingScn { scn: 7, .. }));
}

fn ddl(scn: Scn, xid: &str, text: &str) -> LogMinerRow {
    LogMinerRow {
        seg_owner: Some("APP".into()),
        table_name: Some("ORDER_HIS".into()),
        sql_redo: Some(text.into()),
        ..ctl(scn, xid, OperationCode::Ddl)
    }
}

#[test]
fn ddl_is_emitted_at_its_commit_in_commit_order() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let events = run(
        &mut buf,
        vec![
            insert(1, A, 1),
            start(2, B),
            ddl(
                3,
                B,
                "ALTER TABLE \"APP\".\"ORDER_HIS\" TRUNCATE PARTITION \"P_202501\";",
            ),
            commit(4, B),
            commit(5, A),
        ],
    );
    assert_eq!(events.len(), 2);
    let CapturedEvent::Ddl(d) = &events[0] else {
        panic!("DDL first")
    };
    assert_eq!((d.source.scn, d.source.commit_scn), (3, 4));
    assert_eq!(d.source.table, "ORDER_HIS");
    assert_eq!(buf.counts().ddl, 1);
}

#[test]
fn ddl_without_commit_auto_commits_at_window_end() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let mut out = Vec::new();
    let mut sink = |e| {
        out.push(e);
        Ok(())
    };
    buf.push(ddl(3, B, "DROP TABLE \"APP\".\"T\";"), &mut sink)
        .unwrap();
    buf.finish_window(3, &mut sink).unwrap();
    assert_eq!(buf.open_count(), 0);
    buf.push(commit(4, B), &mut sink).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].source().commit_scn, 3);
    assert_eq!(buf.counts().commits, 1);
}

#[test]
fn status_2_and_unsupported_rows_become_findings_not_events() {
    let mut s2 = insert(2, A, 1);
    s2.status = 2;
    s2.info = Some("Object contains a column of unsupported type".into());
    let mut unsupported = ctl(3, A, OperationCode::Unsupported);
    unsupported.seg_owner = Some("APP".into());
    unsupported.table_name = Some("DOCS".into());
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let events = run(
        &mut buf,
        vec![s2, unsupported, insert(4, A, 2), commit(5, A)],
    );
    assert_eq!(ids(&events), pairs(&[(A, "c2")]));
    let f = buf.take_findings();
    assert_eq!(f.len(), 2);
    assert!(f[0].finding.message().contains("unsupported type"));
    assert!(f[1].finding.message().contains("APP.DOCS"));
}

#[test]
fn a_row_of_an_unknown_operation_code_is_a_finding_at_commit_never_dropped_silently_issue34() {
    let mut unknown = ctl(3, A, OperationCode::Other(41));
    unknown.seg_owner = Some("APP".into());
    unknown.table_name = Some("ORDERS".into());
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let events = run(&mut buf, vec![insert(2, A, 1), unknown, commit(4, A)]);
    assert_eq!(ids(&events), pairs(&[(A, "c1")]));
    let f = buf.take_findings();
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].finding.code(), "unknown_operation");
    assert!(f[0].finding.message().contains("APP.ORDERS"));
    assert!(f[0].finding.message().contains("OPERATION_CODE 41"));
    assert_eq!(buf.stats().findings, 1);
}

#[test]
fn continuation_pieces_are_joined_before_buffering() {
    let full = insert(2, A, 7);
    let sql = full.sql_redo.clone().unwrap();
    let (p1, p2) = sql.split_at(20);
    let mut first = full.clone();
    first.sql_redo = Some(p1.into());
    first.csf = true;
    let mut second = full.clone();
    second.sql_redo = Some(p2.into());
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let events = run(&mut buf, vec![first.clone(), second, commit(3, A)]);
    assert_eq!(ids(&events), pairs(&[(A, "c7")]));
    buf.push(first, &mut |_| Ok(())).unwrap();
    assert!(matches!(
        buf.finish_window(2, &mut |_| Ok(())),
        Err(TxnError::Csf(_))
    ));
}

#[test]
fn source_db_is_src_con_name_or_the_configured_name() {
    let mut pdb = insert(2, A, 1);
    pdb.src_con_name = Some("ORCLPDB1".into());
    let mut buf = TxnBuffer::new(BufferConfig {
        db_name: "ORCL".into(),
        ..BufferConfig::default()
    });
    let events = run(&mut buf, vec![pdb, insert(3, A, 2), commit(4, A)]);
    let dbs: Vec<_> = events.iter().map(|e| e.source().db.clone()).collect();
    assert_eq!(dbs, vec!["ORCLPDB1", "ORCL"]);
}

/// An UPDATE of `APP.DEVICES` whose two RAW columns stay hex (no
/// character-set dictionary).
fn raw_update(scn: Scn, xid: &str, id: u32) -> LogMinerRow {
    LogMinerRow {
        seg_owner: Some("APP".into()),
        table_name: Some("DEVICES".into()),
        row_id: Some(rowid(id)),
        sql_redo: Some(format!(
            "update \"APP\".\"DEVICES\" set \"MAC\" = HEXTORAW('0a0b') where \"ID\" = '{id}' and \
             \"MAC\" = HEXTORAW('0c0d') and \"SERIAL\" = HEXTORAW('ff');"
        )),
        ..ctl(scn, xid, OperationCode::Update)
    }
}

#[test]
fn a_column_kept_as_hex_is_reported_once_across_changes_and_transactions() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let events = run(
        &mut buf,
        vec![
            raw_update(2, A, 1),
            raw_update(3, A, 2),
            commit(4, A),
            raw_update(5, B, 3),
            commit(6, B),
        ],
    );
    assert_eq!(events.len(), 3);
    let mut columns: Vec<String> = buf
        .take_findings()
        .into_iter()
        .map(|f| match f.finding {
            Finding::CharacterHex { column, .. } => column,
            other => panic!("unexpected finding {other:?}"),
        })
        .collect();
    columns.sort();
    assert_eq!(columns, ["MAC", "SERIAL"]);
    // The values themselves stay binary on every change.
    for e in &events {
        let CapturedEvent::Change(c) = e else {
            panic!("not a change: {e:?}");
        };
        let before = c.before.as_ref().map(|i| i.get_field("SERIAL"));
        assert_eq!(before, Some(Some(Field::Binary("ff".into()))));
    }
}
