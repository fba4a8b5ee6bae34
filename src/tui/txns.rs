//! Open transactions as the screen shows them: the database's list
//! (V$TRANSACTION joined to V$SESSION) merged with what the engine buffers
//! for each (changes and bytes, in memory or spilled), by XID.

use chrono::NaiveDateTime;

use crate::engine::metrics::OpenTxnSummary;
use crate::source::SessionTransaction;

/// One open transaction, from the database, the buffer, or both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnRow {
    pub xid: String,
    pub start_scn: u64,
    pub start_time: Option<NaiveDateTime>,
    /// `USED_UREC`, when the database listed it.
    pub undo_records: Option<u64>,
    pub username: Option<String>,
    pub program: Option<String>,
    pub machine: Option<String>,
    /// `SID,SERIAL#` of the session holding it.
    pub session: Option<String>,
    pub container: Option<String>,
    /// What capture buffers for it; `None` when it touched no followed
    /// table (or none of its rows has been mined yet).
    pub buffered: Option<OpenTxnSummary>,
    /// Listed by the database at its last reading; a buffered transaction
    /// that is not began after that reading (or has just ended).
    pub in_database: bool,
}

/// Merges the database's reading with the buffer's transactions, oldest
/// first. XIDs compare without regard to case (RAWTOHEX is upper case,
/// a buffer may hold LogMiner's text as given).
pub fn merge(db: &[SessionTransaction], buffered: &[OpenTxnSummary]) -> Vec<TxnRow> {
    let mut rows: Vec<TxnRow> = db
        .iter()
        .map(|t| {
            let x = &t.transaction;
            let s = t.session.as_ref();
            TxnRow {
                xid: x.xid.clone(),
                start_scn: x.start_scn,
                start_time: x.start_time,
                undo_records: Some(x.used_urec),
                username: s
                    .and_then(|s| s.username.clone())
                    .or_else(|| x.username.clone()),
                program: s.and_then(|s| s.program.clone()),
                machine: s.and_then(|s| s.machine.clone()),
                // As ALTER SYSTEM KILL SESSION takes it: on a cluster the
                // instance too, since a session is killed on its own node.
                session: s.and_then(|s| {
                    let inst = s.inst_id.map(|i| format!(",@{i}")).unwrap_or_default();
                    match (s.sid, s.serial) {
                        (Some(sid), Some(serial)) => Some(format!("{sid},{serial}{inst}")),
                        (Some(sid), None) => Some(format!("{sid}{inst}")),
                        _ => None,
                    }
                }),
                container: x.con_name.clone(),
                buffered: buffered
                    .iter()
                    .find(|b| b.xid.eq_ignore_ascii_case(&x.xid))
                    .cloned(),
                in_database: true,
            }
        })
        .collect();
    for b in buffered {
        if !rows.iter().any(|r| r.xid.eq_ignore_ascii_case(&b.xid)) {
            rows.push(TxnRow {
                xid: b.xid.clone(),
                start_scn: b.start_scn,
                start_time: b.start_time,
                undo_records: None,
                username: None,
                program: None,
                machine: None,
                session: None,
                container: None,
                buffered: Some(b.clone()),
                in_database: false,
            });
        }
    }
    rows.sort_by(|a, b| a.start_scn.cmp(&b.start_scn).then(a.xid.cmp(&b.xid)));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{OpenTransaction, TransactionSession};

    fn db(xid: &str, scn: u64, program: Option<&str>) -> SessionTransaction {
        SessionTransaction {
            transaction: OpenTransaction {
                xid: xid.into(),
                start_scn: scn,
                used_urec: 5,
                username: Some("APP".into()),
                ..OpenTransaction::default()
            },
            session: program.map(|p| TransactionSession {
                sid: Some(41),
                serial: Some(9),
                username: Some("APP".into()),
                program: Some(p.into()),
                machine: Some("app01".into()),
                inst_id: None,
            }),
        }
    }

    fn buf(xid: &str, scn: u64, events: u64, spilled: bool) -> OpenTxnSummary {
        OpenTxnSummary {
            xid: xid.into(),
            start_scn: scn,
            start_time: None,
            events,
            bytes: events * 100,
            spilled,
        }
    }

    #[test]
    fn database_sessions_and_buffer_figures_join_on_the_xid_ignoring_case() {
        let rows = merge(
            &[
                db("0A000B00C0000000", 100, Some("JDBC Thin Client")),
                db("0B000100D0000000", 90, None),
            ],
            &[
                buf("0a000b00c0000000", 100, 12, true),
                buf("0C000200E0000000", 120, 3, false),
            ],
        );
        let xids: Vec<&str> = rows.iter().map(|r| r.xid.as_str()).collect();
        assert_eq!(
            xids,
            ["0B000100D0000000", "0A000B00C0000000", "0C000200E0000000"],
            "oldest first"
        );
        let joined = &rows[1];
        assert_eq!(joined.program.as_deref(), Some("JDBC Thin Client"));
        assert_eq!(joined.machine.as_deref(), Some("app01"));
        assert_eq!(joined.session.as_deref(), Some("41,9"));
        assert_eq!(
            joined.buffered.as_ref().map(|b| (b.events, b.spilled)),
            Some((12, true))
        );
        let no_session = &rows[0];
        assert_eq!(no_session.username.as_deref(), Some("APP"));
        assert_eq!(no_session.program, None);
        assert!(no_session.buffered.is_none());
        let only_buffered = &rows[2];
        assert!(!only_buffered.in_database && only_buffered.undo_records.is_none());
    }

    #[test]
    fn a_cluster_session_is_named_with_its_instance_as_kill_session_takes_it() {
        let mut t = db("0A000B00C0000000", 100, Some("sqlplus"));
        if let Some(s) = t.session.as_mut() {
            s.inst_id = Some(2);
        }
        let rows = merge(&[t], &[]);
        assert_eq!(rows[0].session.as_deref(), Some("41,9,@2"));
    }
}
