//! A workload transaction while it is open: who runs it, what kind it is,
//! and the changes it made that have not yet committed or rolled back.

use std::sync::Arc;

use chrono::NaiveDateTime;

use crate::engine::row::Scn;

use super::redo::{DmlOp, TxnTag};
use crate::source::sim::value::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TxnKind {
    Normal,
    Long { next_at_ms: i64, step_ms: i64 },
    Big,
}

#[derive(Debug, Clone)]
pub struct Txn {
    /// XID, user and container, shared with every redo record of it.
    pub(super) tag: Arc<TxnTag>,
    pub start_scn: Scn,
    pub start_time: NaiveDateTime,
    pub thread: u16,
    pub(super) started: bool,
    pub(super) remaining: u32,
    pub(super) changes: Vec<Change>,
    pub(super) savepoint: Option<usize>,
    pub(super) will_rollback: bool,
    pub(super) kind: TxnKind,
    pub(super) table: Option<usize>,
}

/// The session a workload transaction runs in, as `V$SESSION` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    pub sid: u64,
    pub serial: u64,
    pub program: &'static str,
    pub machine: &'static str,
}

impl Txn {
    pub fn change_count(&self) -> usize {
        self.changes.len()
    }

    pub fn xid(&self) -> &Arc<str> {
        &self.tag.xid
    }

    pub fn username(&self) -> &Arc<str> {
        &self.tag.username
    }

    pub fn pdb(&self) -> &Option<Arc<str>> {
        &self.tag.pdb
    }

    /// Who runs this transaction: the order-entry application's pool for
    /// ordinary ones, an operator's SQL*Plus for long ones, the nightly
    /// loader for big ones. Derived from the XID (not the scenario's random
    /// stream) so that adding sessions changes no workload.
    pub fn holder(&self) -> Holder {
        let n: u64 = self
            .xid()
            .bytes()
            .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
        let (program, machine) = match self.kind {
            TxnKind::Normal if n.is_multiple_of(2) => ("JDBC Thin Client", "app01.example.com"),
            TxnKind::Normal => ("JDBC Thin Client", "app02.example.com"),
            TxnKind::Long { .. } => ("sqlplus@ops-jump01 (TNS V1-V3)", "ops-jump01"),
            TxnKind::Big => ("batch_loader@etl01 (TNS V1-V3)", "etl01"),
        };
        Holder {
            sid: 20 + n % 980,
            serial: 1 + (n / 980) % 65_000,
            program,
            machine,
        }
    }
}

/// A change a transaction made and has not yet committed or rolled back.
#[derive(Debug, Clone)]
pub(super) struct Change {
    pub(super) table: usize,
    pub(super) key: i64,
    pub(super) op: DmlOp,
    pub(super) before: Option<Arc<Vec<Value>>>,
    pub(super) after: Option<Arc<Vec<Value>>>,
    pub(super) rowid: Arc<str>,
    pub(super) scn: Scn,
    pub(super) time: NaiveDateTime,
    pub(super) rs_id: Arc<str>,
    pub(super) thread: u16,
    pub(super) obj: u64,
    pub(super) objd: u64,
    pub(super) changed: Vec<usize>,
    /// A LOB rewritten through `dbms_lob` with no DML statement: only LOB
    /// rows reach the redo.
    pub(super) lob_only: bool,
}
