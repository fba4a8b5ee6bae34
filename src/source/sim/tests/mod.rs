//! Unit tests of the simulator's internals: SQL_REDO rendering against the
//! reference examples byte for byte, and the log/redo bookkeeping. This
//! module holds the scenario and row builders the topics share.

mod archiver;
mod busy_workload;
mod dm8;
mod dm8_capture;
mod hextoraw_text;
mod lob_window;
mod redo_forms;
mod rendering;
mod sessions;
mod snapshot_readers;

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
