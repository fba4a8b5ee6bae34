//! Transactions open in the database (`V$TRANSACTION`) and the sessions
//! holding them: what a first start reads the work under way from, and
//! what an operator needs to act on a transaction that holds capture back.

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};

use crate::engine::row::Scn;

/// A row of `V$TRANSACTION`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct OpenTransaction {
    pub xid: String,
    pub start_scn: Scn,
    pub start_time: Option<NaiveDateTime>,
    /// Undo records used (`USED_UREC`): a size proxy.
    pub used_urec: u64,
    pub username: Option<String>,
    pub con_name: Option<String>,
}

/// The session holding an open transaction (`V$SESSION`, `GV$SESSION` on
/// RAC, joined on `SADDR = V$TRANSACTION.SES_ADDR` and the instance): who
/// to ask to commit or roll back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct TransactionSession {
    pub sid: Option<u64>,
    pub serial: Option<u64>,
    pub username: Option<String>,
    /// `PROGRAM`: `JDBC Thin Client`, `sqlplus@host (TNS V1-V3)`, ...
    pub program: Option<String>,
    /// `MACHINE`: the client's host name.
    pub machine: Option<String>,
    /// `GV$SESSION.INST_ID`: the instance the session is on. Set where the
    /// source knows it (a cluster's GV$ views); a session on another node
    /// can only be killed by naming its instance.
    pub inst_id: Option<u32>,
}

/// A row of `V$TRANSACTION` with its session: the join an operator needs
/// to act on a transaction that holds capture's restart SCN back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct SessionTransaction {
    pub transaction: OpenTransaction,
    /// `None` when no session row matched (the session ended between the
    /// two views being read, or V$SESSION was not read).
    pub session: Option<TransactionSession>,
}
