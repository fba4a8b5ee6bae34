//! Unit tests of the simulator's internals: SQL_REDO rendering against the
//! reference examples byte for byte, and the log/redo bookkeeping.

use std::sync::Arc;

use chrono::NaiveDate;

use super::logminer::Session;
use super::model::{Body, DmlOp, Rec};
use super::value::Value;
use super::*;
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
        rs_id: Arc::from(" 0x000064.00000002.0010 "),
        ssn: 0,
        xid: Arc::from("0A0014005D3C0000"),
        username: Arc::from("APP"),
        pdb: Some(Arc::from("ORCLPDB1")),
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
