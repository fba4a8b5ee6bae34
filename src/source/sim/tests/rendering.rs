//! Oracle's SQL_REDO rendered byte for byte as the reference examples show
//! it: DML under each supplemental logging level, unknown objects, control
//! rows, CSF pieces and table aliases.

use super::*;

#[test]
fn reference_insert_update_delete_render_byte_for_byte() {
    let m = model(ORDERS);
    let s = session(true);
    let new = row("1001", "NEW", Value::Null);
    let paid = row("1001", "PAID", Value::Str("O'Brien".into()));
    let ins = s.render(&m, &dml(&m, DmlOp::Insert, None, Some(new.clone()), vec![]));
    assert_eq!(
        ins.sql_redo.as_deref(),
        Some("insert into \"APP\".\"ORDERS\"(\"ORDER_ID\",\"STATUS\",\"AMOUNT\",\"ORDER_DATE\",\"NOTE\") values ('1001','NEW','99.5',TO_DATE('2025-03-01 09:00:00', 'YYYY-MM-DD HH24:MI:SS'),NULL);")
    );
    let upd = s.render(
        &m,
        &dml(&m, DmlOp::Update, Some(new), Some(paid.clone()), vec![1, 4]),
    );
    assert_eq!(
        upd.sql_redo.as_deref(),
        Some("update \"APP\".\"ORDERS\" set \"STATUS\" = 'PAID', \"NOTE\" = 'O''Brien' where \"ORDER_ID\" = '1001' and \"STATUS\" = 'NEW' and \"AMOUNT\" = '99.5' and \"ORDER_DATE\" = TO_DATE('2025-03-01 09:00:00', 'YYYY-MM-DD HH24:MI:SS') and \"NOTE\" IS NULL;")
    );
    let del = s.render(&m, &dml(&m, DmlOp::Delete, Some(paid), None, vec![]));
    assert_eq!(
        del.sql_redo.as_deref(),
        Some("delete from \"APP\".\"ORDERS\" where \"ORDER_ID\" = '1001' and \"STATUS\" = 'PAID' and \"AMOUNT\" = '99.5' and \"ORDER_DATE\" = TO_DATE('2025-03-01 09:00:00', 'YYYY-MM-DD HH24:MI:SS') and \"NOTE\" = 'O''Brien';")
    );
    assert_eq!(del.operation_code, OperationCode::Delete);
    assert_eq!(del.row_id.as_deref(), Some("AAAR3sAAEAAAACXAAA"));
    assert_eq!(del.src_con_name.as_deref(), Some("ORCLPDB1"));
}

#[test]
fn minimal_logging_update_carries_changed_columns_and_rowid() {
    let text = ORDERS.replace(
        "supplemental_logging = \"all\"",
        "supplemental_logging = \"min\"",
    );
    let m = model(&text);
    let s = Session::unrestricted(&m);
    let upd = s.render(
        &m,
        &dml(
            &m,
            DmlOp::Update,
            Some(row("7", "NEW", Value::Null)),
            Some(row("7", "PAID", Value::Null)),
            vec![1],
        ),
    );
    assert_eq!(
        upd.sql_redo.as_deref(),
        Some("update \"APP\".\"ORDERS\" set \"STATUS\" = 'PAID' where \"STATUS\" = 'NEW' and ROWID = 'AAAR3sAAEAAAACXAAA';")
    );
}

#[test]
fn primary_key_logging_update_carries_key_and_changed_columns() {
    let text = ORDERS.replace(
        "supplemental_logging = \"all\"",
        "supplemental_logging = \"pk\"",
    );
    let m = model(&text);
    let s = Session::unrestricted(&m);
    let upd = s.render(
        &m,
        &dml(
            &m,
            DmlOp::Update,
            Some(row("7", "NEW", Value::Null)),
            Some(row("7", "PAID", Value::Null)),
            vec![1],
        ),
    );
    assert_eq!(
        upd.sql_redo.as_deref(),
        Some("update \"APP\".\"ORDERS\" set \"STATUS\" = 'PAID' where \"ORDER_ID\" = '7' and \"STATUS\" = 'NEW' and ROWID = 'AAAR3sAAEAAAACXAAA';")
    );
}

#[test]
fn dropped_object_renders_as_unknown_with_raw_column_bytes() {
    let mut m = model(ORDERS);
    let obj = m.tables[0].obj_id;
    m.dropped_objects.insert(obj);
    let s = Session::unrestricted(&m);
    let ins = s.render(
        &m,
        &dml(
            &m,
            DmlOp::Insert,
            None,
            Some(row("101000", "NEW", Value::Null)),
            vec![],
        ),
    );
    assert_eq!(ins.seg_owner.as_deref(), Some("UNKNOWN"));
    assert_eq!(
        ins.table_name.as_deref(),
        Some(format!("OBJ# {obj}").as_str())
    );
    let sql = ins.sql_redo.unwrap_or_default();
    assert!(
        sql.starts_with(&format!("insert into \"UNKNOWN\".\"OBJ# {obj}\"(\"COL 1\",\"COL 2\",\"COL 3\",\"COL 4\",\"COL 5\") values (HEXTORAW('c30b0b'),HEXTORAW('4e4557'),")),
        "{sql}"
    );
    assert!(sql.ends_with(",NULL);"), "{sql}");
}

#[test]
fn control_rows_use_oracle_text_and_commit_carries_both_scns() {
    let m = model(ORDERS);
    let s = Session::unrestricted(&m);
    let mut rec = dml(&m, DmlOp::Insert, None, None, vec![]);
    rec.body = Body::Start;
    assert_eq!(
        s.render(&m, &rec).sql_redo.as_deref(),
        Some("set transaction read write;")
    );
    rec.body = Body::Commit { start_scn: 90 };
    let c = s.render(&m, &rec);
    assert_eq!(c.sql_redo.as_deref(), Some("commit;"));
    assert_eq!((c.start_scn, c.commit_scn), (Some(90), Some(100)));
    rec.body = Body::Rollback { start_scn: 90 };
    let r = s.render(&m, &rec);
    assert_eq!(
        (r.sql_redo.as_deref(), r.operation_code),
        (Some("rollback;"), OperationCode::Rollback)
    );
    assert_eq!(r.commit_scn, None);
}

#[test]
fn long_statement_splits_into_csf_pieces_of_at_most_4000_bytes() {
    let m = model(ORDERS);
    let s = Session::unrestricted(&m);
    // Multi-byte characters force splits off byte boundaries. The value
    // stays within 4000 bytes: a longer one is an extended string, which
    // travels in 32K rows instead of the statement.
    let note = "订单已支付 it's; ".repeat(170);
    let rec = dml(
        &m,
        DmlOp::Insert,
        None,
        Some(row("1", "NEW", Value::Str(note))),
        vec![],
    );
    let whole = s.render(&m, &rec);
    let mut pieces = Vec::new();
    logminer::split_csf(whole.clone(), &mut pieces);
    assert!(pieces.len() >= 2);
    for (i, p) in pieces.iter().enumerate() {
        let text = p.sql_redo.as_deref().unwrap_or_default();
        assert!(text.len() <= CSF_PIECE_BYTES);
        assert_eq!(p.csf, i + 1 < pieces.len());
        assert_eq!(
            (p.scn, &p.rs_id, p.ssn),
            (whole.scn, &whole.rs_id, whole.ssn)
        );
    }
    let joined: String = pieces.iter().filter_map(|p| p.sql_redo.clone()).collect();
    assert_eq!(Some(joined), whole.sql_redo);
}

#[test]
fn rs_id_and_rowid_have_oracle_shape() {
    assert_eq!(model::rs_id(0xa3f, 0x12c, 0x10), " 0x000a3f.0000012c.0010 ");
    let r = model::rowid(74_222, 4, 151, 0);
    assert_eq!(r.len(), 18);
    assert_eq!(&r[..6], "AAASHu");
}

#[test]
fn without_a_dictionary_every_object_renders_as_unknown() {
    let m = model(ORDERS);
    let mut s = Session::unrestricted(&m);
    s.options.dict_from_online_catalog = false;
    let ins = s.render(
        &m,
        &dml(
            &m,
            DmlOp::Insert,
            None,
            Some(row("1", "NEW", Value::Null)),
            vec![],
        ),
    );
    assert_eq!(ins.seg_owner.as_deref(), Some("UNKNOWN"));
    assert!(ins.sql_redo.unwrap_or_default().contains("\"COL 1\""));
}

#[test]
fn transaction_sessions_name_the_instance_only_on_a_cluster() {
    let mut rac = Sim::from_spec("rac").unwrap();
    let txns = Catalog::transaction_sessions(&mut rac).unwrap();
    assert!(!txns.is_empty());
    for t in &txns {
        let s = t
            .session
            .as_ref()
            .expect("every simulated transaction has a session");
        assert!(s.sid.is_some() && s.serial.is_some(), "{t:?}");
        assert!(matches!(s.inst_id, Some(1 | 2)), "{t:?}");
    }
    let mut single = Sim::from_spec("demo").unwrap();
    let txns = Catalog::transaction_sessions(&mut single).unwrap();
    assert!(!txns.is_empty());
    assert!(txns
        .iter()
        .all(|t| t.session.as_ref().is_some_and(|s| s.inst_id.is_none())));
}

#[test]
fn a_partitioned_tables_segment_bytes_are_its_partitions_bytes() {
    let mut sim = Sim::from_spec("interval-partition-churn")
        .unwrap()
        .with_default_pdb();
    let tables = Catalog::tables(&mut sim, &[]).unwrap();
    let partitioned: Vec<_> = tables.iter().filter(|t| t.partitioning.is_some()).collect();
    assert!(!partitioned.is_empty());
    for t in partitioned {
        let parts = &t.partitioning.as_ref().unwrap().partitions;
        let sum: u64 = parts.iter().filter_map(|p| p.bytes).sum();
        assert_eq!(t.segment_bytes, Some(sum), "{}", t.name);
    }
}

/// ORDERS with a `[logminer]` section.
fn orders_with(logminer: &str) -> Model {
    model(&format!("{ORDERS}\n[logminer]\n{logminer}\n"))
}

#[test]
fn issue9_an_aliased_update_and_delete_qualify_every_column_but_rowid() {
    let m = orders_with("table_alias_pct = 100.0");
    let s = Session::unrestricted(&m);
    let new = row("1001", "NEW", Value::Null);
    let paid = row("1001", "PAID", Value::Str("O'Brien".into()));
    let upd = s.render(
        &m,
        &dml(&m, DmlOp::Update, Some(new), Some(paid.clone()), vec![1, 4]),
    );
    assert_eq!(
        upd.sql_redo.as_deref(),
        Some("update \"APP\".\"ORDERS\" a set a.\"STATUS\" = 'PAID', a.\"NOTE\" = 'O''Brien' where a.\"ORDER_ID\" = '1001' and a.\"STATUS\" = 'NEW' and a.\"AMOUNT\" = '99.5' and a.\"ORDER_DATE\" = TO_DATE('2025-03-01 09:00:00', 'YYYY-MM-DD HH24:MI:SS') and a.\"NOTE\" IS NULL and ROWID = 'AAAR3sAAEAAAACXAAA';")
    );
    let del = s.render(
        &m,
        &dml(&m, DmlOp::Delete, Some(paid.clone()), None, vec![]),
    );
    assert!(
        del.sql_redo
            .as_deref()
            .is_some_and(|t| t.starts_with("delete from \"APP\".\"ORDERS\" a where a.\"ORDER_ID\" = '1001' and a.\"STATUS\" = 'PAID'")),
        "{:?}",
        del.sql_redo
    );
    // An INSERT never names an alias.
    let ins = s.render(&m, &dml(&m, DmlOp::Insert, None, Some(paid), vec![]));
    assert!(ins
        .sql_redo
        .as_deref()
        .is_some_and(|t| t.starts_with("insert into \"APP\".\"ORDERS\"(\"ORDER_ID\"")));
}

#[test]
fn issue9_table_aliases_are_drawn_for_some_rows_the_same_way_on_every_query() {
    let m = orders_with("table_alias_pct = 30.0");
    let s = Session::unrestricted(&m);
    let old = row("7", "NEW", Value::Null);
    let new = row("7", "PAID", Value::Null);
    let aliased = |scn: u64| {
        let mut r = dml(
            &m,
            DmlOp::Update,
            Some(old.clone()),
            Some(new.clone()),
            vec![1],
        );
        r.scn = scn;
        // A record of its own: another log sequence, so another RS_ID.
        r.seq = scn;
        s.render(&m, &r)
            .sql_redo
            .is_some_and(|t| t.contains("\"ORDERS\" a set"))
    };
    let drawn: Vec<bool> = (100..400).map(aliased).collect();
    let n = drawn.iter().filter(|a| **a).count();
    assert!((50..130).contains(&n), "{n} of 300 aliased at 30%");
    assert_eq!(drawn, (100..400).map(aliased).collect::<Vec<_>>());
    let none = orders_with("table_alias_pct = 0.0");
    let s0 = Session::unrestricted(&none);
    let r = dml(&none, DmlOp::Update, Some(old), Some(new), vec![1]);
    assert!(!s0.render(&none, &r).sql_redo.unwrap().contains(" a set "));
}
