//! The ground truth: every committed change and DDL in commit order, as a
//! faithful capture must deliver it: what captured output is checked against.

use std::sync::Arc;

use chrono::NaiveDateTime;

use crate::engine::event::{
    CapturedEvent, ChangeEvent, Field, Image, Op, SnapshotMark, SourcePosition,
};
use crate::engine::row::Scn;
use crate::source::sim::value::{oson, ColType, Value};

use super::redo::DmlOp;
use super::txn::Change;
use super::txn::Txn;
use super::{ms, Model};
use crate::source::sim::scenario::SuppLevel;

/// A row removed by partition DDL: no DELETE reaches the redo for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemovedRow {
    /// SCN of the DDL.
    pub scn: Scn,
    /// Index into `Model::tables`.
    pub table: usize,
    /// The key as snapshot reads show it (`Model::key_texts`).
    pub key: Vec<String>,
}

impl Model {
    pub(super) fn record_ddl_removed(&mut self, scn: Scn, table: usize, key: Vec<String>) {
        self.ddl_removed.push_back(RemovedRow { scn, table, key });
        let limit = self.truth_limit.unwrap_or(usize::MAX).max(1);
        while self.ddl_removed.len() > limit {
            self.ddl_removed.pop_front();
        }
    }

    pub(super) fn record_truth(&mut self, start_scn: Scn, ev: CapturedEvent) {
        self.truth.push_back((start_scn, ev));
        if let Some(limit) = self.truth_limit {
            while self.truth.len() > limit {
                self.truth.pop_front();
                self.truth_dropped += 1;
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn position(
        &self,
        t: usize,
        xid: &str,
        scn: Scn,
        commit_scn: Scn,
        time: NaiveDateTime,
        rs_id: Option<String>,
        thread: u16,
        row_id: Option<String>,
    ) -> SourcePosition {
        let table = &self.tables[t];
        SourcePosition {
            name: "cdcctl".into(),
            db: table
                .pdb
                .clone()
                .unwrap_or_else(|| self.scenario.instance.db_name.clone()),
            schema: table.name.owner.clone(),
            table: table.name.table.clone(),
            xid: xid.to_string(),
            scn,
            commit_scn,
            change_ts_ms: ms(time),
            rs_id,
            ssn: 0,
            thread,
            row_id,
            dialect: self.scenario.instance.dialect,
            user_name: None,
            start_scn: None,
            start_ts_ms: None,
        }
    }

    /// `source` as a capture that read the transaction's START row writes
    /// it: who ran it (Oracle logs the user only under supplemental
    /// logging; DM8 always) and where it began.
    pub(super) fn with_origin(
        &self,
        mut source: SourcePosition,
        user: &Arc<str>,
        start_scn: Scn,
        start_time: NaiveDateTime,
    ) -> SourcePosition {
        let named = self.scenario.is_dm() || self.logs_user();
        source.user_name = named.then(|| user.clone());
        source.start_scn = Some(start_scn);
        source.start_ts_ms = Some(ms(start_time));
        source
    }

    pub(super) fn change_event(
        &self,
        txn: &Txn,
        c: &Change,
        commit_scn: Scn,
        commit_ts_ms: i64,
        index: u32,
        table_order: u32,
    ) -> ChangeEvent {
        let op = match c.op {
            DmlOp::Insert => Op::Create,
            DmlOp::Update => Op::Update,
            DmlOp::Delete => Op::Delete,
        };
        let table = &self.tables[c.table];
        if self.scenario.is_dm() {
            return self.dm_change_event(txn, c, op, commit_scn, commit_ts_ms, index, table_order);
        }
        let capture = self.lob_capture;
        // What LogMiner leaves out of DML text: LOB and XMLType columns, and
        // VARCHAR2 values past 4000 bytes (MAX_STRING_SIZE = EXTENDED).
        let hidden =
            |i: usize, v: &Value| table.columns[i].ty.is_lob_like() || v.is_extended_string();
        // A value the pieces after the statement carry: extended strings
        // always reassembled, LOB and XML only by a capture that
        // reassembles them (`--lob capture`).
        let nls = &self.nls;
        let ty = |i: usize| &table.columns[i].ty;
        let carried = |i: usize, v: &Value| match v {
            // An update's SET prints the document's OSON, which decodes;
            // an insert's VALUES only the empty locator.
            Value::Json(doc) if c.op == DmlOp::Update => Field::text(oson::stored_text(doc)),
            Value::Blob(_) if !capture => Field::UnavailableBinary,
            Value::Clob(_) | Value::Xml(_) if !capture => Field::Unavailable,
            other => other.full_field_in(ty(i), nls),
        };
        // The placeholder of a value left out: binary for a BLOB column.
        let placeholder = |i: usize| {
            if table.columns[i].ty == ColType::Blob {
                Field::UnavailableBinary
            } else {
                Field::Unavailable
            }
        };
        let name = |i: usize| table.columns[i].name.clone();
        let mut before: Option<Image> = c.before.as_ref().map(|vals| {
            vals.iter()
                .enumerate()
                .map(|(i, v)| {
                    (
                        name(i),
                        if hidden(i, v) {
                            placeholder(i)
                        } else {
                            v.field_in(ty(i), nls)
                        },
                    )
                })
                .collect()
        });
        let mut after: Option<Image> = c.after.as_ref().map(|vals| {
            vals.iter()
                .enumerate()
                .map(|(i, v)| {
                    let f = match c.op {
                        DmlOp::Update if !c.changed.contains(&i) => {
                            let was = c.before.as_ref().and_then(|b| b.get(i));
                            if hidden(i, v) || was.is_some_and(|b| hidden(i, b)) {
                                placeholder(i)
                            } else {
                                v.field_in(ty(i), nls)
                            }
                        }
                        _ => carried(i, v),
                    };
                    (name(i), f)
                })
                .collect()
        });
        if c.lob_only && self.supp_level(c.table) != SuppLevel::All {
            // Only LOB rows reached the redo, their locator naming the row
            // by its key: the rest of the row is not known.
            let (b, a) = self.lob_only_images(c, &carried);
            before = Some(b);
            after = Some(a);
        }
        self.change_with_images(
            txn,
            c,
            op,
            before,
            after,
            commit_scn,
            commit_ts_ms,
            index,
            table_order,
        )
    }

    /// A `dbms_lob` rewrite under key-only logging: the key, the new value
    /// and every other column unavailable, as (before, after).
    fn lob_only_images(
        &self,
        c: &Change,
        carried: &dyn Fn(usize, &Value) -> Field,
    ) -> (Image, Image) {
        let table = &self.tables[c.table];
        let nls = &self.nls;
        let mut before = Image::new();
        let mut after = Image::new();
        for (i, col) in table.columns.iter().enumerate() {
            let value = c.after.as_ref().and_then(|a| a.get(i));
            let unknown = if col.ty == ColType::Blob {
                Field::UnavailableBinary
            } else {
                Field::Unavailable
            };
            let (b, a) = match value {
                Some(v) if table.pk.contains(&i) => {
                    let f = v.field_in(&col.ty, nls);
                    (f.clone(), f)
                }
                Some(v) if c.changed.contains(&i) => (unknown, carried(i, v)),
                _ => (unknown.clone(), unknown),
            };
            before.push(&col.name, &b);
            after.push(&col.name, &a);
        }
        (before, after)
    }

    /// A change as DM8's LogMiner lets a capture see it: every value the
    /// statement prints (the full before image at RLOG_APPEND_LOGIC = 2,
    /// LOB columns excepted: they are never in a WHERE), and a LOB kept out
    /// of the row unavailable whatever `lob_capture` says, since DM8 never
    /// logs its content.
    #[allow(clippy::too_many_arguments)]
    fn dm_change_event(
        &self,
        txn: &Txn,
        c: &Change,
        op: Op,
        commit_scn: Scn,
        commit_ts_ms: i64,
        index: u32,
        table_order: u32,
    ) -> ChangeEvent {
        let table = &self.tables[c.table];
        let col = |i: usize| &table.columns[i];
        let where_field = |i: usize, v: &Value| {
            if col(i).ty.is_lob() {
                Field::Unavailable
            } else {
                v.dm_field(&col(i).ty)
            }
        };
        let before: Option<Image> = c.before.as_ref().map(|vals| {
            vals.iter()
                .enumerate()
                .map(|(i, v)| (col(i).name.clone(), where_field(i, v)))
                .collect()
        });
        let after: Option<Image> = c.after.as_ref().map(|vals| {
            vals.iter()
                .enumerate()
                .map(|(i, v)| {
                    let f = match c.op {
                        DmlOp::Update if !c.changed.contains(&i) => where_field(i, v),
                        _ => v.dm_field(&col(i).ty),
                    };
                    (col(i).name.clone(), f)
                })
                .collect()
        });
        self.change_with_images(
            txn,
            c,
            op,
            before,
            after,
            commit_scn,
            commit_ts_ms,
            index,
            table_order,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn change_with_images(
        &self,
        txn: &Txn,
        c: &Change,
        op: Op,
        before: Option<Image>,
        after: Option<Image>,
        commit_scn: Scn,
        commit_ts_ms: i64,
        index: u32,
        table_order: u32,
    ) -> ChangeEvent {
        ChangeEvent {
            op,
            before,
            after,
            source: self.with_origin(
                self.position(
                    c.table,
                    txn.xid(),
                    c.scn,
                    commit_scn,
                    c.time,
                    Some(c.rs_id.to_string()),
                    c.thread,
                    Some(c.rowid.to_string()),
                ),
                txn.username(),
                txn.start_scn,
                txn.start_time,
            ),
            snapshot: SnapshotMark::Stream,
            partial: false,
            commit_ts_ms,
            index,
            table_order,
        }
    }
}
