//! LOB, XMLType and extended-string pieces reassembled into their change
//! (or given as the unavailable marker), and pieces that do not fit.

use super::*;

/// A row of `code` on APP.DOCS (the row of `rowid(id)`) with this SQL_REDO.
fn piece(scn: Scn, xid: &str, code: u16, id: u32, sql: &str) -> LogMinerRow {
    LogMinerRow {
        seg_owner: Some("APP".into()),
        table_name: Some("DOCS".into()),
        row_id: Some(rowid(id)),
        sql_redo: (!sql.is_empty()).then(|| sql.to_string()),
        ..ctl(scn, xid, OperationCode::from_code(code))
    }
}

fn doc_insert(scn: Scn, xid: &str, id: u32, body: &str) -> LogMinerRow {
    piece(
        scn,
        xid,
        1,
        id,
        &format!("insert into \"APP\".\"DOCS\"(\"ID\",\"BODY\") values ('{id}',{body});"),
    )
}

fn locator(scn: Scn, xid: &str, id: u32, column: &str, var: &str) -> LogMinerRow {
    let sql = format!(
        "DECLARE \n loc_c CLOB; \n buf_c VARCHAR2(6156); \n loc_b BLOB; \n buf_b RAW(6156);\n \
         loc_nc NCLOB; \n buf_nc NVARCHAR2(6156); \nBEGIN\n select \"{column}\" into {var} from \
         \"APP\".\"DOCS\" where \"ID\" = '{id}' and ROWID = '{}' for update;",
        rowid(id)
    );
    piece(scn, xid, 9, id, &sql)
}

fn clob_write(scn: Scn, xid: &str, id: u32, text: &str, offset: u64) -> LogMinerRow {
    let sql = format!(
        " buf_c := '{}'; \n  dbms_lob.write(loc_c, {}, {offset}, buf_c);\nEND;",
        text.replace('\'', "''"),
        text.chars().count()
    );
    piece(scn, xid, 10, id, &sql)
}

fn lob_buffer(lob: LobMode, on_parse_error: OnParseError) -> TxnBuffer {
    TxnBuffer::new(BufferConfig {
        lob,
        on_parse_error,
        ..BufferConfig::default()
    })
}

fn after_of(e: &CapturedEvent) -> Vec<(String, Field)> {
    match e {
        CapturedEvent::Change(c) => c.after.as_ref().map(Image::to_vec).unwrap_or_default(),
        CapturedEvent::Ddl(_) => Vec::new(),
    }
}

fn text(v: &str) -> Field {
    Field::Text(v.to_string())
}

#[test]
fn issue9_lob_capture_puts_the_lob_writes_into_the_insert() {
    let mut buf = lob_buffer(LobMode::Capture, OnParseError::Fail);
    let rows = vec![
        doc_insert(2, A, 1, "EMPTY_CLOB()"),
        locator(3, A, 1, "BODY", "loc_c"),
        clob_write(4, A, 1, "it's ", 1),
        clob_write(5, A, 1, "long", 6),
        commit(6, A),
    ];
    let events = run(&mut buf, rows);
    assert_eq!(events.len(), 1);
    assert_eq!(
        after_of(&events[0]),
        vec![("ID".into(), text("1")), ("BODY".into(), text("it's long"))]
    );
    assert_eq!(buf.stats().lob_rows, 3);
    assert!(buf.take_findings().is_empty());
}

#[test]
fn issue9_empty_lob_with_no_write_is_an_empty_value_under_capture() {
    let mut buf = lob_buffer(LobMode::Capture, OnParseError::Fail);
    let events = run(
        &mut buf,
        vec![doc_insert(2, A, 1, "EMPTY_CLOB()"), commit(3, A)],
    );
    assert_eq!(after_of(&events[0])[1], ("BODY".into(), text("")));
}

#[test]
fn issue9_lob_placeholder_gives_the_marker_and_one_finding_per_column() {
    let mut buf = lob_buffer(LobMode::Placeholder, OnParseError::Fail);
    let rows = vec![
        doc_insert(2, A, 1, "EMPTY_CLOB()"),
        locator(3, A, 1, "BODY", "loc_c"),
        clob_write(4, A, 1, "abc", 1),
        doc_insert(5, A, 2, "EMPTY_CLOB()"),
        commit(6, A),
    ];
    let events = run(&mut buf, rows);
    assert_eq!(events.len(), 2);
    for e in &events {
        assert_eq!(after_of(e)[1], ("BODY".into(), Field::Unavailable));
    }
    let f = buf.take_findings();
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(matches!(&f[0].finding, Finding::LobUnavailable { column, .. } if column == "BODY"));
}

#[test]
fn issue9_lob_written_alone_becomes_an_update_of_its_row() {
    // dbms_lob on an existing row: no DML row, the LOB rows and a trim.
    let mut buf = lob_buffer(LobMode::Capture, OnParseError::Fail);
    let rows = vec![
        locator(2, A, 5, "BODY", "loc_c"),
        clob_write(3, A, 5, "new text", 1),
        piece(4, A, 11, 5, " dbms_lob.trim(loc_c, 8);"),
        commit(5, A),
    ];
    let events = run(&mut buf, rows);
    assert_eq!(events.len(), 1);
    let CapturedEvent::Change(c) = &events[0] else {
        panic!("a change event, got {:?}", events[0])
    };
    assert_eq!(c.op, Op::Update);
    assert_eq!(c.before, Some(vec![("ID".into(), text("5"))].into()));
    assert_eq!(
        c.after,
        Some(vec![("ID".into(), text("5")), ("BODY".into(), text("new text"))].into())
    );
    assert_eq!(c.source.row_id.as_deref(), Some(rowid(5).as_str()));
    // Without capture such a change carries nothing: no event, a finding.
    let mut buf = lob_buffer(LobMode::Placeholder, OnParseError::Fail);
    let rows = vec![
        locator(2, A, 5, "BODY", "loc_c"),
        clob_write(3, A, 5, "new text", 1),
        commit(5, A),
    ];
    assert!(run(&mut buf, rows).is_empty());
    assert_eq!(buf.take_findings().len(), 1);
}

#[test]
fn issue9_blob_writes_give_bytes() {
    let mut buf = lob_buffer(LobMode::Capture, OnParseError::Fail);
    let rows = vec![
        doc_insert(2, A, 1, "EMPTY_BLOB()"),
        locator(3, A, 1, "BODY", "loc_b"),
        piece(
            4,
            A,
            10,
            1,
            " buf_b := HEXTORAW('0A0B'); \n  dbms_lob.write(loc_b, 2, 1, buf_b);\nEND;",
        ),
        piece(
            5,
            A,
            10,
            1,
            " buf_b := HEXTORAW('ff'); \n  dbms_lob.write(loc_b, 1, 3, buf_b);\nEND;",
        ),
        commit(6, A),
    ];
    let events = run(&mut buf, rows);
    assert_eq!(
        after_of(&events[0])[1],
        ("BODY".into(), Field::Binary("0a0bff".into()))
    );
}

#[test]
fn issue9_xml_doc_rows_fill_the_xml_column_of_the_change_before() {
    // Oracle's XMLType example: the INSERT leaves the XMLType column out,
    // XML DOC BEGIN names it, the document follows in pieces (here as
    // HEXTORAW that cuts `é` in two).
    let mut buf = lob_buffer(LobMode::Capture, OnParseError::Fail);
    let rows = vec![
        piece(
            2,
            A,
            1,
            1,
            "insert into \"APP\".\"DOCS\"(\"ID\") values ('1');",
        ),
        piece(
            3,
            A,
            68,
            1,
            "update \"APP\".\"DOCS\" a set a.\"X\" = XMLType(:1) where a.\"ID\" = '1';",
        ),
        piece(4, A, 70, 1, "XML_REDO := HEXTORAW('3c613ec3'):4"),
        piece(5, A, 70, 1, "XML_REDO := HEXTORAW('a93c2f613e):5"),
        piece(6, A, 71, 1, ""),
        commit(7, A),
    ];
    let events = run(&mut buf, rows);
    assert_eq!(events.len(), 1);
    assert_eq!(after_of(&events[0])[1], ("X".into(), text("<a>é</a>")));
    // The placeholder: the column is there, unavailable, and reported.
    let mut buf = lob_buffer(LobMode::Placeholder, OnParseError::Fail);
    let rows = vec![
        piece(
            2,
            A,
            1,
            1,
            "insert into \"APP\".\"DOCS\"(\"ID\") values ('1');",
        ),
        piece(
            3,
            A,
            68,
            1,
            "update \"APP\".\"DOCS\" a set a.\"X\" = XMLType(:1) where a.\"ID\" = '1';",
        ),
        piece(4, A, 70, 1, "XML_REDO := '<a/>':4"),
        piece(6, A, 71, 1, ""),
        commit(7, A),
    ];
    let events = run(&mut buf, rows);
    assert_eq!(after_of(&events[0])[1], ("X".into(), Field::Unavailable));
    assert_eq!(buf.take_findings().len(), 1);
}

#[test]
fn issue9_extended_string_is_reassembled_without_lob_capture() {
    let mut buf = lob_buffer(LobMode::Placeholder, OnParseError::Fail);
    let begin = "DECLARE \n TempLob CLOB;\n buf_c VARCHAR2(32767);\n Stmt CLOB;\nBEGIN\n \
                 DBMS_LOB.CreateTemporary(TempLob, FALSE);\n Stmt := 'update \"APP\".\"DOCS\" a set \
                 a.\"NOTES\" = :NOTES where a.\"ID\" = ''1'';';";
    let rows = vec![
        piece(
            2,
            A,
            3,
            1,
            "update \"APP\".\"DOCS\" set \"T\" = 'x' where \"ID\" = '1';",
        ),
        piece(3, A, 91, 1, begin),
        piece(
            4,
            A,
            92,
            1,
            " buf_c := 'it''s '; \n DBMS_LOB.WRITEAPPEND(TempLob, 5, buf_c);",
        ),
        piece(5, A, 92, 1, " buf_c := 'long';"),
        piece(6, A, 93, 1, ""),
        commit(7, A),
    ];
    let events = run(&mut buf, rows);
    assert_eq!(events.len(), 1);
    assert_eq!(
        after_of(&events[0]),
        vec![
            ("ID".into(), text("1")),
            ("T".into(), text("x")),
            ("NOTES".into(), text("it's long"))
        ]
    );
    assert!(buf.take_findings().is_empty());
}

#[test]
fn issue9_malformed_xml_row_is_a_parse_error_or_a_dead_letter() {
    let rows = || {
        vec![
            piece(
                2,
                A,
                1,
                1,
                "insert into \"APP\".\"DOCS\"(\"ID\") values ('1');",
            ),
            piece(
                3,
                A,
                68,
                1,
                "update \"APP\".\"DOCS\" a set a.\"X\" = XMLType(:1) where a.\"ID\" = '1';",
            ),
            piece(4, A, 70, 1, "XML Data"),
            piece(5, A, 71, 1, ""),
            commit(6, A),
        ]
    };
    let mut buf = lob_buffer(LobMode::Capture, OnParseError::Fail);
    let mut err = None;
    for r in rows() {
        if let Err(e) = buf.push(r, &mut |_| Ok(())) {
            err = Some(e);
            break;
        }
    }
    match err {
        Some(TxnError::Parse { raw, scn, .. }) => {
            assert_eq!(raw, "XML Data");
            assert_eq!(scn, 4);
        }
        other => panic!("a parse error, got {other:?}"),
    }
    let mut buf = lob_buffer(LobMode::Capture, OnParseError::Warn);
    let events = run(&mut buf, rows());
    assert_eq!(events.len(), 1);
    let dead = buf.take_dead_letters();
    assert_eq!(dead.len(), 1);
    assert_eq!(dead[0].raw, "XML Data");
}

/// Pushes the rows and returns the first error's message.
fn first_error(buf: &mut TxnBuffer, rows: Vec<LogMinerRow>) -> String {
    for r in rows {
        if let Err(e) = buf.push(r, &mut |_| Ok(())) {
            return e.to_string();
        }
    }
    panic!("the rows were accepted")
}

#[test]
fn issue9_pieces_out_of_place_are_errors_with_the_raw_row() {
    let mut buf = lob_buffer(LobMode::Capture, OnParseError::Fail);
    let e = first_error(&mut buf, vec![clob_write(2, A, 1, "x", 1), commit(3, A)]);
    assert!(
        e.contains("no locator") && e.contains("dbms_lob.write"),
        "{e}"
    );

    let mut buf = lob_buffer(LobMode::Placeholder, OnParseError::Fail);
    let rows = vec![piece(2, A, 92, 1, " buf_c := 'x';"), commit(3, A)];
    let e = first_error(&mut buf, rows);
    assert!(e.contains("32K WRITE without a 32K BEGIN"), "{e}");

    let mut buf = lob_buffer(LobMode::Capture, OnParseError::Fail);
    let begin = "update \"APP\".\"DOCS\" a set a.\"X\" = XMLType(:1) where a.\"ID\" = '1';";
    let rows = vec![piece(2, A, 68, 1, begin), commit(3, A)];
    let e = first_error(&mut buf, rows);
    assert!(
        e.contains("no XML DOC END before the COMMIT") && e.contains(begin),
        "{e}"
    );
}

#[test]
fn issue9_undone_statement_takes_its_lob_rows_with_it() {
    let mut buf = lob_buffer(LobMode::Capture, OnParseError::Fail);
    let mut undo = piece(
        5,
        A,
        2,
        1,
        "delete from \"APP\".\"DOCS\" where \"ID\" = '1';",
    );
    undo.rollback = true;
    let rows = vec![
        doc_insert(2, A, 1, "EMPTY_CLOB()"),
        locator(3, A, 1, "BODY", "loc_c"),
        clob_write(4, A, 1, "gone", 1),
        undo,
        doc_insert(6, A, 2, "EMPTY_CLOB()"),
        commit(7, A),
    ];
    let events = run(&mut buf, rows);
    assert_eq!(events.len(), 1);
    assert_eq!(after_of(&events[0])[0], ("ID".into(), text("2")));
}

#[test]
fn issue32_a_lob_written_earlier_in_the_transaction_is_in_later_updates_of_its_row() {
    // The row is inserted with its CLOB, then updated without touching it
    // and deleted: the update and delete images carry the CLOB the
    // transaction wrote rather than leaving it out.
    let update = |scn, id: u32| {
        let sql = format!("update \"APP\".\"DOCS\" set \"TITLE\" = 'x' where \"ID\" = '{id}';");
        piece(scn, A, 3, id, &sql)
    };
    let rows = vec![
        doc_insert(2, A, 1, "EMPTY_CLOB()"),
        locator(3, A, 1, "BODY", "loc_c"),
        clob_write(4, A, 1, "it's long", 1),
        update(5, 1),
        // Another row's update gets nothing of row 1.
        update(6, 2),
        piece(
            7,
            A,
            2,
            1,
            "delete from \"APP\".\"DOCS\" where \"ID\" = '1';",
        ),
        commit(8, A),
    ];
    let mut buf = lob_buffer(LobMode::Capture, OnParseError::Fail);
    let events = run(&mut buf, rows.clone());
    let images: Vec<_> = events
        .iter()
        .map(|e| match e {
            CapturedEvent::Change(c) => (c.before.clone(), c.after.clone()),
            CapturedEvent::Ddl(_) => panic!("no DDL here"),
        })
        .collect();
    let body = |image: &Option<Image>| image.as_ref().and_then(|i| i.get_field("BODY"));
    assert_eq!(images.len(), 4);
    assert_eq!(body(&images[1].0), Some(text("it's long")));
    assert_eq!(body(&images[1].1), Some(text("it's long")));
    assert_eq!(body(&images[2].0), None);
    assert_eq!(body(&images[3].0), Some(text("it's long")));
    // Without capture nothing was captured to give.
    let mut buf = lob_buffer(LobMode::Placeholder, OnParseError::Fail);
    let events = run(&mut buf, rows);
    let CapturedEvent::Change(c) = &events[1] else {
        panic!("a change event")
    };
    assert_eq!(body(&c.before), None);
}
