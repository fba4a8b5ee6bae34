//! Buffer behaviour pinned row by row, by the behaviour each file holds:
//! commit order and rollbacks, positions and restarts, memory bounds,
//! special rows, LOB pieces, and a model of random workloads. The rows and
//! helpers they share are here.

use super::commit::ts_ms;
use super::*;
use crate::engine::event::{CapturedEvent, ChangeEvent, Field, FieldRef, Image, Op};
use crate::engine::finding::Finding;
use chrono::NaiveDate;

const A: &str = "0A0014005D3C0000";
const B: &str = "0B0001000A000000";
const C: &str = "0C0002000B000000";

fn at(secs: i64) -> Option<NaiveDateTime> {
    NaiveDate::from_ymd_opt(2025, 3, 1)
        .and_then(|d| d.and_hms_opt(9, 0, 0))
        .map(|t| t + chrono::Duration::seconds(secs))
}

fn ctl(scn: Scn, xid: &str, op: OperationCode) -> LogMinerRow {
    LogMinerRow {
        scn,
        xid: xid.into(),
        operation_code: op,
        timestamp: at(scn as i64),
        ..LogMinerRow::default()
    }
}

fn start(scn: Scn, xid: &str) -> LogMinerRow {
    ctl(scn, xid, OperationCode::Start)
}

fn commit(scn: Scn, xid: &str) -> LogMinerRow {
    ctl(scn, xid, OperationCode::Commit)
}

fn rowid(n: u32) -> String {
    const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let c = |v: u32| char::from(B64[(v % 64) as usize]);
    format!("AAAR3sAAEAAAACX{}{}{}", c(n / 4096), c(n / 64), c(n))
}

fn insert(scn: Scn, xid: &str, id: u32) -> LogMinerRow {
    LogMinerRow {
        seg_owner: Some("APP".into()),
        table_name: Some("ORDERS".into()),
        row_id: Some(rowid(id)),
        sql_redo: Some(format!(
            "insert into \"APP\".\"ORDERS\"(\"ORDER_ID\",\"STATUS\") values ('{id}','NEW');"
        )),
        ..ctl(scn, xid, OperationCode::Insert)
    }
}

fn update(scn: Scn, xid: &str, id: u32, status: &str) -> LogMinerRow {
    LogMinerRow {
        seg_owner: Some("APP".into()),
        table_name: Some("ORDERS".into()),
        row_id: Some(rowid(id)),
        sql_redo: Some(format!(
            "update \"APP\".\"ORDERS\" set \"STATUS\" = '{status}' where \"ORDER_ID\" = '{id}' and \"STATUS\" = 'NEW';"
        )),
        ..ctl(scn, xid, OperationCode::Update)
    }
}

/// The undo row LogMiner shows for a rolled-back INSERT: a DELETE, ROLLBACK = 1.
fn undo_insert(scn: Scn, xid: &str, id: u32) -> LogMinerRow {
    LogMinerRow {
        rollback: true,
        seg_owner: Some("APP".into()),
        table_name: Some("ORDERS".into()),
        row_id: Some(rowid(id)),
        sql_redo: Some(format!(
            "delete from \"APP\".\"ORDERS\" where \"ORDER_ID\" = '{id}' and \"STATUS\" = 'NEW';"
        )),
        ..ctl(scn, xid, OperationCode::Delete)
    }
}

fn run(buf: &mut TxnBuffer, rows: Vec<LogMinerRow>) -> Vec<CapturedEvent> {
    let mut out = Vec::new();
    for r in rows {
        buf.push(r, &mut |e| {
            out.push(e);
            Ok(())
        })
        .unwrap();
    }
    out
}

fn ids(events: &[CapturedEvent]) -> Vec<(String, String)> {
    events
        .iter()
        .map(|e| match e {
            CapturedEvent::Change(c) => {
                let img = c.after.as_ref().or(c.before.as_ref()).unwrap();
                let id = img
                    .get("ORDER_ID")
                    .and_then(FieldRef::as_str)
                    .unwrap_or("?")
                    .to_string();
                (c.source.xid.clone(), format!("{}{}", c.op.code(), id))
            }
            CapturedEvent::Ddl(d) => (d.source.xid.clone(), d.ddl.clone()),
        })
        .collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

mod lob;
mod memory;
mod model;
mod order;
mod position;
mod rows;
