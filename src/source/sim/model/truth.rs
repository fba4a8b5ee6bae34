//! The ground truth: every committed change and DDL in commit order, as a
//! faithful capture must deliver it: what captured output is checked against.

use chrono::NaiveDateTime;

use crate::engine::event::{CapturedEvent, ChangeEvent, Field, Image, Op, SourcePosition};
use crate::engine::row::Scn;
use crate::source::sim::value::Value;

use super::dml::Change;
use super::redo::DmlOp;
use super::workload::Txn;
use super::{ms, Model};

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

    fn image(&self, t: usize, values: &[Value]) -> Image {
        self.tables[t]
            .columns
            .iter()
            .zip(values)
            .map(|(c, v)| (c.name.clone(), v.field()))
            .collect()
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
        }
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
        let lob = |name: &str| {
            self.tables[c.table]
                .columns
                .iter()
                .any(|col| col.name == name && col.ty.is_lob())
        };
        // LOB content never travels in DML redo: an insert shows NULL or
        // EMPTY_LOB() (content in LOB_WRITE rows), and UPDATE/DELETE images
        // do not carry LOB columns at all.
        let mut before = c.before.as_ref().map(|v| self.image(c.table, v));
        for (name, f) in before.iter_mut().flatten() {
            if lob(name) {
                *f = Field::Unavailable;
            }
        }
        let mut after = c.after.as_ref().map(|v| self.image(c.table, v));
        if c.op == DmlOp::Update {
            for (name, f) in after.iter_mut().flatten() {
                if lob(name) {
                    *f = Field::Unavailable;
                }
            }
        }
        ChangeEvent {
            op,
            before,
            after,
            source: self.position(
                c.table,
                &txn.xid,
                c.scn,
                commit_scn,
                c.time,
                Some(c.rs_id.to_string()),
                c.thread,
                Some(c.rowid.to_string()),
            ),
            snapshot: false,
            partial: false,
            commit_ts_ms,
            index,
            table_order,
        }
    }
}
