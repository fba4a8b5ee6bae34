//! Unit tests of the simulator's internals: SQL_REDO rendering against the
//! reference examples byte for byte, and the log/redo bookkeeping.

use std::sync::Arc;

use chrono::NaiveDate;

use super::logminer::Session;
use super::model::{Body, DmlOp, Rec, TxnTag};
use super::value::Value;
use super::*;
use crate::engine::event::FieldRef;
use crate::engine::row::OperationCode;
use crate::source::MiningOptions;

const ORDERS: &str = r#"
[instance]
version = "19c"
cdb = true
pdbs = ["ORCLPDB1"]
supplemental_logging = "all"
[connection]
user = "C##CDCCTL"
[[tables]]
owner = "APP"
name = "ORDERS"
rows = 0
primary_key = ["ORDER_ID"]
columns = [
  { name = "ORDER_ID", type = "NUMBER(18)", nullable = false },
  { name = "STATUS", type = "VARCHAR2(20)" },
  { name = "AMOUNT", type = "NUMBER(12,2)" },
  { name = "ORDER_DATE", type = "DATE" },
  { name = "NOTE", type = "VARCHAR2(100)" },
]
"#;

fn model(text: &str) -> Model {
    Model::new(Scenario::parse(text, "test").unwrap())
}

fn row(id: &str, status: &str, note: Value) -> Arc<Vec<Value>> {
    let d = NaiveDate::from_ymd_opt(2025, 3, 1)
        .and_then(|d| d.and_hms_opt(9, 0, 0))
        .unwrap();
    Arc::new(vec![
        Value::Number(id.into()),
        Value::Str(status.into()),
        Value::Number("99.5".into()),
        Value::Date(d),
        note,
    ])
}

fn dml(
    m: &Model,
    op: DmlOp,
    before: Option<Arc<Vec<Value>>>,
    after: Option<Arc<Vec<Value>>>,
    changed: Vec<usize>,
) -> Rec {
    Rec {
        scn: 100,
        time: m.now(),
        thread: 1,
        seq: 100,
        block: 2,
        txn: TxnTag::new(
            Arc::from("0A0014005D3C0000"),
            Arc::from("APP"),
            Some(Arc::from("ORCLPDB1")),
        ),
        body: Body::Dml {
            table: 0,
            obj: m.tables[0].obj_id,
            objd: m.tables[0].data_obj_id,
            op,
            rollback: false,
            rowid: Arc::from("AAAR3sAAEAAAACXAAA"),
            before,
            after,
            changed,
        },
    }
}

fn session(no_rowid: bool) -> Session {
    let m = model(ORDERS);
    let mut s = Session::unrestricted(&m);
    s.options = MiningOptions {
        no_rowid_in_stmt: no_rowid,
        dict_from_online_catalog: true,
        ..MiningOptions::default()
    };
    s
}

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

const FORMS: &str = r#"
[instance]
version = "21c"
cdb = true
pdbs = ["ORCLPDB1"]
supplemental_logging = "all"
characterset = "ZHS16GBK"
nchar_characterset = "AL16UTF16"
[connection]
user = "C##CDCCTL"
[[tables]]
owner = "APP"
name = "EVENTS"
rows = 0
primary_key = ["ID"]
columns = [
  { name = "ID", type = "NUMBER(18)", nullable = false },
  { name = "T0", type = "TIMESTAMP(0)" },
  { name = "T3", type = "TIMESTAMP(3) WITH TIME ZONE" },
  { name = "NAME", type = "VARCHAR2(40)" },
  { name = "LABEL", type = "NVARCHAR2(20)" },
  { name = "DOC", type = "JSON" },
]
[logminer]
nls_timestamp_format = "YYYY-MM-DD HH24:MI:SS.FF"
"#;

fn forms_row(name: &str, label: &str, doc: &str) -> Arc<Vec<Value>> {
    let t = NaiveDate::from_ymd_opt(2020, 2, 1)
        .and_then(|d| d.and_hms_milli_opt(0, 0, 0, 250))
        .unwrap();
    let whole = NaiveDate::from_ymd_opt(2020, 2, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .unwrap();
    Arc::new(vec![
        Value::Number("1".into()),
        Value::Timestamp(whole),
        Value::TimestampTz(t, 60),
        Value::Str(name.into()),
        Value::NStr(label.into()),
        Value::Json(doc.into()),
    ])
}

#[test]
fn issue9_insert_under_an_ff_format_prints_empty_fractions_json_locators_and_hextoraw_text() {
    let m = model(FORMS);
    let s = Session::unrestricted(&m);
    let r = forms_row("\u{1}中文", "\u{7}中", r#"{"a":1}"#);
    let ins = s.render(&m, &dml(&m, DmlOp::Insert, None, Some(r), vec![]));
    // TIMESTAMP(0) under `...SS.FF` prints no fraction digit; TIMESTAMP(3)
    // three. Control characters make LogMiner print the bytes: ZHS16GBK for
    // VARCHAR2, AL16UTF16 for NVARCHAR2. A JSON value is a LOB locator.
    assert_eq!(
        ins.sql_redo.as_deref(),
        Some("insert into \"APP\".\"EVENTS\"(\"ID\",\"T0\",\"T3\",\"NAME\",\"LABEL\",\"DOC\") values ('1',TO_TIMESTAMP('2020-02-01 00:00:00.'),TO_TIMESTAMP_TZ('2020-02-01 00:00:00.250 +01:00'),HEXTORAW('01d6d0cec4'),HEXTORAW('00074e2d'),/* JSON */ EMPTY_BLOB());")
    );
}

#[test]
fn issue9_a_json_column_set_by_an_update_prints_binary_oson_and_stays_out_of_where() {
    let m = model(FORMS);
    let s = Session::unrestricted(&m);
    let old = forms_row("a", "b", r#"{"a":1}"#);
    let new = forms_row("a", "b", "[]");
    let upd = s.render(&m, &dml(&m, DmlOp::Update, Some(old), Some(new), vec![5]));
    assert_eq!(
        upd.sql_redo.as_deref(),
        Some("update \"APP\".\"EVENTS\" set \"DOC\" = /* JSON */ HEXTORAW('ff4a5a015b5d') where \"ID\" = '1' and \"T0\" = TO_TIMESTAMP('2020-02-01 00:00:00.') and \"T3\" = TO_TIMESTAMP_TZ('2020-02-01 00:00:00.250 +01:00') and \"NAME\" = 'a' and \"LABEL\" = 'b' and ROWID = 'AAAR3sAAEAAAACXAAA';")
    );
}

#[test]
fn issue9_the_truth_gives_what_the_engine_reads_from_these_forms() {
    use crate::engine::event::Field;
    let m = model(FORMS);
    let r = forms_row("x", "y", "{}");
    let field = |i: usize| r[i].field_in(&m.tables[0].columns[i].ty, &m.nls);
    assert_eq!(field(1), Field::text("2020-02-01T00:00:00.0"));
    assert_eq!(field(2), Field::text("2020-01-31T23:00:00.250Z"));
    assert_eq!(field(5), Field::Unavailable);
    // Under cdcctl's own FF9 format: nine digits.
    let ff9 = model(&FORMS.replace("SS.FF\"", "SS.FF9\""));
    assert_eq!(
        r[1].field_in(&ff9.tables[0].columns[1].ty, &ff9.nls),
        Field::text("2020-02-01T00:00:00.000000000")
    );
}

#[test]
fn issue9_character_data_is_stored_in_the_database_character_set() {
    let cs = model(&FORMS.replace("ZHS16GBK", "WE8MSWIN1252"))
        .nls
        .charsets;
    let ty = value::ColType::Varchar2(40);
    assert_eq!(
        Value::Str("café 中文".into()).stored_in(&ty, &cs),
        Value::Str("café ??".into())
    );
    let char4 = value::ColType::Char(4);
    assert_eq!(
        Value::Str("é  ".into()).stored_in(&char4, &cs),
        Value::Str("é   ".into()),
        "CHAR(4) is 4 bytes of WE8MSWIN1252, where é takes one, not UTF-8's two"
    );
    let gbk = model(FORMS).nls.charsets;
    assert_eq!(
        Value::Str("中 ".into()).stored_in(&char4, &gbk),
        Value::Str("中  ".into())
    );
}

#[test]
fn issue9_scenarios_refuse_json_before_21c_and_formats_the_simulator_does_not_print() {
    let err = Scenario::parse(&FORMS.replace("\"21c\"", "\"19c\""), "t").unwrap_err();
    assert!(
        err.to_string()
            .contains("JSON is a column type from Oracle 21c"),
        "{err}"
    );
    let err = Scenario::parse(&FORMS.replace("SS.FF\"", "SS.FF3\""), "t").unwrap_err();
    assert!(
        err.to_string().contains("logminer.nls_timestamp_format"),
        "{err}"
    );
    let err = Scenario::parse(
        &format!("{ORDERS}\n[logminer]\ntable_alias_pct = 150.0\n"),
        "t",
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("logminer.table_alias_pct"),
        "{err}"
    );
}

mod hextoraw_text {
    //! Character data rendered as LogMiner prints it when it cannot show it
    //! as text, read back by the engine's parser and character-set decoder.
    use proptest::prelude::*;

    use super::super::charset::Charsets;
    use super::super::value::{ColType, Fraction, Nls, Value};
    use crate::engine::charset::Charset;
    use crate::engine::redo::parse;

    const SETS: [&str; 7] = [
        "AL32UTF8",
        "UTF8",
        "AL16UTF16",
        "ZHS16GBK",
        "WE8MSWIN1252",
        "WE8ISO8859P1",
        "US7ASCII",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        #[test]
        fn issue9_non_displayable_text_round_trips_through_hextoraw_in_every_character_set(
            // A control character other than tab, line feed and carriage
            // return: what LogMiner cannot show as text.
            text in "(?s)[\\x01-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f]{1,3}.{0,30}",
            set in prop::sample::select(&SETS[..]),
            national in any::<bool>(),
        ) {
            let cs = Charset::from_oracle_name(set).unwrap();
            let nls = Nls {
                fraction: Fraction::Ff,
                charsets: Charsets { database: cs, national: cs },
            };
            let (ty, value) = if national {
                (ColType::NVarchar2(100), Value::NStr(text))
            } else {
                (ColType::Varchar2(400), Value::Str(text))
            };
            let stored = value.stored_in(&ty, &nls.charsets);
            let lit = stored.literal_in(&ty, &nls, true);
            prop_assert!(lit.starts_with("HEXTORAW('"), "{}", lit);
            let sql = format!(r#"insert into "S"."T"("C") values ({lit});"#);
            let mut st = parse(&sql).unwrap();
            let mut dict = crate::engine::charset::CharsetDictionary::new(cs, cs);
            dict.add_column("S", "T", "C", &ty.data_type());
            st.decode_character_hex(Some(&dict));
            prop_assert_eq!(st.findings().len(), 0, "{}", sql);
            prop_assert_eq!(
                st.after_image(),
                Some(vec![("C".to_string(), stored.field())].into())
            );
        }
    }
}

/// A built-in DM8 scenario with `edits` applied to its text.
fn dm_variant(edits: &[(&str, &str)]) -> Sim {
    let b = BUILTINS.iter().find(|b| b.name == "dm8").expect("dm8");
    let mut text = b.text.to_string();
    for (from, to) in edits {
        assert!(text.contains(from), "dm8 has no `{from}`");
        text = text.replacen(from, to, 1);
    }
    Sim::new(
        Scenario::parse(&text, "dm8").expect("a valid variant"),
        Clock::default(),
    )
}

#[test]
fn dm8_rows_have_own_start_and_commit_rows_dm8_literals_and_no_oracle_forms() {
    let s = Sim::from_spec("dm8").expect("dm8");
    let rows = s.all_rows();
    assert!(rows.len() > 1000, "{} rows", rows.len());
    let count = |op: OperationCode| rows.iter().filter(|r| r.operation_code == op).count();
    assert!(count(OperationCode::Start) > 100);
    assert!(count(OperationCode::Commit) > 100);
    // No end row for a rollback, and (rollback model `none`) no undo rows.
    assert_eq!(count(OperationCode::Rollback), 0);
    assert!(rows.iter().all(|r| !r.rollback));
    for r in &rows {
        assert_eq!(r.xid.len(), 16, "{}", r.xid);
        assert!(r
            .xid
            .bytes()
            .all(|b| b.is_ascii_digit() || b.is_ascii_uppercase()));
        assert_eq!((r.thread, r.start_scn, r.commit_scn), (1, None, None));
        let Some(sql) = r.sql_redo.as_deref() else {
            assert!(matches!(
                r.operation_code,
                OperationCode::Start | OperationCode::Commit
            ));
            continue;
        };
        // Outside string literals (a doubled quote toggles twice).
        let mut inside = false;
        let code: String = sql
            .chars()
            .filter(|&c| {
                if c == '\'' {
                    inside = !inside;
                }
                !inside && c != '\''
            })
            .collect();
        for oracle_only in [
            "TO_DATE(",
            "TO_TIMESTAMP",
            "HEXTORAW(",
            "EMPTY_",
            "ROWID",
            ";",
            " a.",
        ] {
            assert!(!code.contains(oracle_only), "{oracle_only} in {sql}");
        }
        assert!(
            sql.starts_with("INSERT INTO \"APP\".")
                || sql.starts_with("UPDATE \"APP\".")
                || sql.starts_with("DELETE FROM \"APP\"."),
            "{sql}"
        );
    }
    let all: String = rows.iter().filter_map(|r| r.sql_redo.clone()).collect();
    for form in [
        "DATE'",
        "TIME'",
        "TIMESTAMP'",
        " +05:30'",
        "0x",
        "OUT_CLOB",
        "E-",
    ] {
        assert!(all.contains(form), "no {form} in any row");
    }
    assert!(!all.contains("OUT_CLOB(LOB_ID"), "parse_lob is off");
}

#[test]
fn dm8_where_carries_the_full_before_image_at_append_logic_2_and_the_key_at_1() {
    let full = Sim::from_spec("dm8").expect("dm8");
    let update = |s: &Sim| -> String {
        s.all_rows()
            .into_iter()
            .filter(|r| r.operation_code == OperationCode::Update)
            .filter_map(|r| r.sql_redo)
            .find(|q| q.starts_with("UPDATE \"APP\".\"ALL_TYPES\""))
            .expect("an update of ALL_TYPES")
    };
    let sql = update(&full);
    let where_part = sql.split(" WHERE ").nth(1).expect("a WHERE");
    for col in ["\"ID\"", "\"BIG\"", "\"RATIO\"", "\"STAMP_TZ\""] {
        assert!(where_part.contains(col), "{col} missing: {sql}");
    }
    assert!(!where_part.contains("\"BODY\"") && !where_part.contains("\"PHOTO\""));
    let keyed = dm_variant(&[("rlog_append_logic = 2", "rlog_append_logic = 1")]);
    let sql = update(&keyed);
    let where_part = sql.split(" WHERE ").nth(1).expect("a WHERE");
    assert!(
        where_part.starts_with("\"ID\" = ") && !where_part.contains(" AND "),
        "{sql}"
    );
}

#[test]
fn dm8_splits_long_statements_into_pieces_of_one_scn_numbered_by_ssn() {
    let mut s = Sim::from_spec("dm8").expect("dm8");
    let to = s.model().scn;
    let from = s.scenario().instance.start_scn;
    s.start_session(&SessionRequest {
        log_files: s.plan_logs(from),
        start_scn: from,
        end_scn: to,
        options: MiningOptions {
            dict_from_online_catalog: true,
            ..MiningOptions::default()
        },
    })
    .expect("a session");
    s.query_contents(&ContentsQuery {
        from_scn: from,
        to_scn: to,
        ..ContentsQuery::default()
    })
    .expect("a query");
    let mut rows = Vec::new();
    while s.fetch(1000, &mut rows).expect("fetch") > 0 {}
    let first = rows
        .iter()
        .position(|r| r.csf)
        .expect("a statement over 4000 bytes");
    let scn = rows[first].scn;
    let pieces: Vec<_> = rows[first..].iter().take_while(|r| r.scn == scn).collect();
    assert!(pieces.len() >= 2);
    for (n, p) in pieces.iter().enumerate() {
        assert_eq!(p.ssn, n as u64);
        assert_eq!(p.csf, n + 1 < pieces.len());
        assert!(p.sql_redo.as_deref().map_or(0, str::len) <= CSF_PIECE_BYTES);
    }
}

#[test]
fn dm8_append_logic_0_shows_nothing_and_flagged_rollbacks_show_undo_rows_without_an_end_row() {
    let empty = Sim::from_spec("dm8-append-logic-0").expect("scenario");
    assert!(empty.all_rows().is_empty());
    assert!(
        !empty.model().archived.is_empty(),
        "files are still archived"
    );
    let flagged = dm_variant(&[("rollback_rows = \"none\"", "rollback_rows = \"flagged\"")]);
    let rows = flagged.all_rows();
    assert!(rows.iter().any(|r| r.rollback && r.operation_code.is_dml()));
    assert!(rows
        .iter()
        .all(|r| r.operation_code != OperationCode::Rollback));
    let lob_ids = dm_variant(&[("parse_lob = false", "parse_lob = true")]);
    assert!(lob_ids
        .all_rows()
        .iter()
        .filter_map(|r| r.sql_redo.as_deref())
        .any(|q| q.contains("OUT_CLOB(LOB_ID: ")));
}

#[test]
fn dm8_partial_rollbacks_and_oracle_faults_are_refused() {
    let b = BUILTINS.iter().find(|b| b.name == "dm8").expect("dm8");
    let text = b.text.replacen(
        "rollback_pct = 5.0",
        "rollback_pct = 5.0\nsavepoint_pct = 1.0",
        1,
    );
    let e = Scenario::parse(&text, "dm8")
        .expect_err("refused")
        .to_string();
    assert!(e.contains("workload.savepoint_pct"), "{e}");
    let text = format!(
        "{}\n[[faults]]\nkind = \"connection_drop\"\nat_s = 10\n",
        b.text
    );
    let e = Scenario::parse(&text, "dm8")
        .expect_err("refused")
        .to_string();
    assert!(e.contains("does not model"), "{e}");
}

#[test]
fn dm8_catalog_and_inventory_follow_the_contract_mapping() {
    let mut s = Sim::from_spec("dm8").expect("dm8");
    assert_eq!(RedoSource::dialect(&s), crate::source::Dialect::Dm);
    let i = Catalog::instance(&mut s).expect("instance");
    assert_eq!(i.dialect, crate::source::Dialect::Dm);
    assert_eq!(i.log_mode, "ARCHIVELOG");
    let d = i.dm.expect("DM8 facts");
    assert_eq!(d.rlog_append_logic.as_deref(), Some("2"));
    assert_eq!(d.logmnr_package_installed, Some(true));
    assert_eq!(d.arch_destinations.len(), 1);
    assert_eq!(
        i.parameters.get("rlog_append_logic").map(String::as_str),
        Some("2")
    );
    let inv = Catalog::log_inventory(&mut s).expect("inventory");
    assert!(inv.archived.len() >= 2);
    assert_eq!(inv.online.len(), 1);
    let current = &inv.online[0];
    assert_eq!(
        (current.thread, current.status.as_str(), current.next_change),
        (1, "CURRENT", None)
    );
    assert_eq!(inv.threads.len(), 1);
    assert_eq!(inv.resetlogs_change, 0);
    let types: Vec<String> = Catalog::tables(&mut s, &[])
        .expect("tables")
        .into_iter()
        .flat_map(|t| t.columns.into_iter().map(|c| c.data_type))
        .collect();
    for ty in [
        "INT",
        "BIGINT",
        "DECIMAL",
        "DOUBLE",
        "VARCHAR",
        "CHAR",
        "DATE",
        "TIME",
        "TIMESTAMP",
        "TIMESTAMP WITH TIME ZONE",
        "BLOB",
        "CLOB",
    ] {
        assert!(types.iter().any(|t| t == ty), "{ty} not in {types:?}");
    }
    let mut off = Sim::from_spec("dm8-no-arch").expect("scenario");
    let i = Catalog::instance(&mut off).expect("instance");
    assert_eq!(i.log_mode, "NOARCHIVELOG");
    let inv = Catalog::log_inventory(&mut off).expect("inventory");
    assert!(inv.archived.is_empty() && inv.online.is_empty());
}

#[test]
fn dm8_truth_gives_long_lobs_as_unavailable_even_when_lobs_are_captured() {
    use crate::engine::event::CapturedEvent;
    let mut s = Sim::from_spec("dm8").expect("dm8");
    s.set_lob_truth(true);
    s.advance_ms(600_000);
    let mut inline = 0;
    let mut out = 0;
    for e in s.truth() {
        let CapturedEvent::Change(c) = e else {
            continue;
        };
        for (name, f) in c.after.iter().flatten() {
            if name == "BODY" || name == "PHOTO" {
                match f {
                    FieldRef::Unavailable => out += 1,
                    FieldRef::Null => {}
                    _ => inline += 1,
                }
            }
        }
    }
    assert!(inline > 0 && out > 0, "inline {inline}, out of row {out}");
}

#[test]
fn dm8_snapshot_reads_are_refused_as_the_live_dm8_source_refuses_them() {
    let mut s = Sim::from_spec("dm8").expect("dm8");
    let scn = s.model().scn;
    let table = TableName {
        owner: "APP".into(),
        table: "ORDERS".into(),
    };
    let e = s
        .snapshot_chunk(&table, scn, None, 10)
        .expect_err("no consistent DM8 read is wired");
    assert!(matches!(e, SourceError::Unsupported(_)), "{e:?}");
    assert!(e.to_string().contains("--snapshot never"), "{e}");
}

/// A busy ORDERS table whose undo outgrows a 1 MiB undo tablespace well
/// inside its 900 s retention.
fn busy_orders(undo_mb: u64) -> Sim {
    let text = ORDERS.replace(
        "supplemental_logging = \"all\"\n[connection]",
        &format!(
            "supplemental_logging = \"all\"\nundo_retention_s = 900\nundo_tablespace_mb = {undo_mb}\n[connection]"
        ),
    ) + "[workload]\nrate = 2000.0\ninsert = 40\nupdate = 40\ndelete = 20\n";
    let scenario = Scenario::parse(&text, "test").expect("scenario");
    Sim::new(scenario, Clock::default()).with_default_pdb()
}

fn orders() -> TableName {
    TableName {
        owner: "APP".into(),
        table: "ORDERS".into(),
    }
}

#[test]
fn undo_held_never_exceeds_the_undo_tablespace_however_long_the_workload_runs() {
    let mut s = busy_orders(1);
    let cap = s.model().undo_capacity();
    assert_eq!(cap, 1 << 20);
    let mut records = Vec::new();
    for _ in 0..6 {
        s.advance_ms(10_000);
        let (bytes, n) = s.model().undo_usage();
        assert!(
            bytes <= cap,
            "{bytes} bytes of undo held in a {cap}-byte tablespace"
        );
        records.push(n);
    }
    // Full after the first 10 s (20,000 changes of over 64 bytes each) and
    // flat from then on: the count moves only with the size of the images.
    let (lo, hi) = (records[1..].iter().min(), records[1..].iter().max());
    let (Some(&lo), Some(&hi)) = (lo, hi) else {
        panic!("no samples");
    };
    assert!(hi - lo < hi / 10, "undo records per sample: {records:?}");
}

#[test]
fn a_read_as_of_an_scn_within_retention_whose_undo_was_overwritten_for_space_raises_ora_01555() {
    let mut small = busy_orders(1);
    let mut large = busy_orders(4096);
    let old = small.current_scn().expect("scn").scn;
    let old_large = large.current_scn().expect("scn").scn;
    assert_eq!(old, old_large, "same seed, same database");
    small.advance_ms(30_000);
    large.advance_ms(30_000);
    // 30 s is well inside the 900 s retention: only the space differs.
    let e = small
        .snapshot_chunk(&orders(), old, None, 10)
        .expect_err("undo overwritten");
    assert!(e.to_string().contains("ORA-01555"), "{e}");
    assert!(e.to_string().contains("undo_tablespace_mb = 1"), "{e}");
    assert!(large.snapshot_chunk(&orders(), old, None, 10).is_ok());
    let now = small.current_scn().expect("scn").scn;
    assert!(small.snapshot_chunk(&orders(), now, None, 10).is_ok());
}

#[test]
fn an_undo_tablespace_of_zero_mib_is_refused_with_its_key() {
    let text = ORDERS.replace("[connection]", "undo_tablespace_mb = 0\n[connection]");
    let e = Scenario::parse(&text, "test").expect_err("zero-sized undo");
    assert!(e.to_string().contains("undo_tablespace_mb"), "{e}");
}

#[test]
fn a_truth_limit_set_after_the_warm_up_drops_what_it_recorded_beyond_the_limit() {
    let mut s = busy_orders(64);
    s.advance_ms(2_000);
    let recorded = s.truth().count();
    assert!(recorded > 1_000, "{recorded} truth events");
    s.set_truth_limit(Some(0));
    assert_eq!(s.truth().count(), 0);
    assert_eq!(s.model().truth_dropped, recorded as u64);
    s.advance_ms(2_000);
    assert_eq!(s.truth().count(), 0, "none recorded from then on");
}

/// Mines `windows` consecutive SCN windows of the demo the way the engine
/// does, restarting LogMiner over the same logs for each; `fresh` ends the
/// session first, so nothing of the previous one is kept.
fn mine_windows(windows: usize, fresh: bool) -> Vec<LogMinerRow> {
    let mut s = Sim::from_spec("demo").unwrap();
    let start = s.model().scn;
    s.advance_ms(600_000);
    let end = s.model().scn;
    let files = s.plan_logs(start);
    let step = (end - start) / windows as u64;
    let mut out = Vec::new();
    for w in 0..windows as u64 {
        if fresh {
            s.end_session().unwrap();
        }
        s.start_session(&SessionRequest {
            log_files: files.clone(),
            start_scn: start,
            end_scn: end,
            options: MiningOptions {
                dict_from_online_catalog: true,
                ..MiningOptions::default()
            },
        })
        .unwrap();
        s.query_contents(&ContentsQuery {
            from_scn: start + w * step,
            to_scn: start + (w + 1) * step,
            ..ContentsQuery::default()
        })
        .unwrap();
        while s.fetch(1000, &mut out).unwrap() > 0 {}
    }
    out
}

#[test]
fn a_session_restarted_over_the_same_logs_resolves_undo_xids_as_a_fresh_one_does() {
    let kept = mine_windows(40, false);
    let fresh = mine_windows(40, true);
    let undo: Vec<&LogMinerRow> = kept.iter().filter(|r| r.rollback).collect();
    assert!(!undo.is_empty(), "the demo's rollbacks write undo rows");
    assert!(
        undo.iter().any(|r| !r.xid.ends_with("FFFFFFFF")),
        "some undo rows' transactions started inside the session"
    );
    assert_eq!(kept.len(), fresh.len());
    assert!(kept
        .iter()
        .zip(&fresh)
        .all(|(a, b)| format!("{a:?}") == format!("{b:?}")));
}

#[test]
fn deletes_as_likely_as_inserts_keep_a_busy_table_at_its_size() {
    let text = r#"
seed = 21
warmup_s = 1
[instance]
version = "11.2"
cdb = false
[connection]
user = "CDC"
[[tables]]
owner = "APP"
name = "ORDERS"
rows = 2000
primary_key = ["ID"]
columns = [
  { name = "ID", type = "NUMBER(10)", nullable = false },
  { name = "NAME", type = "VARCHAR2(50)" },
]
[workload]
rate = 55000.0
insert = 25
update = 50
delete = 25
txn_size = [10, 10]
concurrency = 8
"#;
    let mut s = Sim::new(Scenario::parse(text, "test").unwrap(), Clock::default());
    s.set_truth_limit(None);
    s.drain_truth();
    s.pregenerate(300_000);
    let count = |op: crate::engine::event::Op| {
        s.truth()
            .filter(|e| matches!(e, CapturedEvent::Change(c) if c.op == op))
            .count() as f64
    };
    let (inserts, deletes) = (
        count(crate::engine::event::Op::Create),
        count(crate::engine::event::Op::Delete),
    );
    assert!(deletes > 50_000.0, "{deletes} deletes");
    assert!(
        (inserts / deletes - 1.0).abs() < 0.02,
        "{inserts} inserts against {deletes} deletes"
    );
}
