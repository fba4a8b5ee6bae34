//! The redo text behind each change, kept for a screen's detail pane:
//! `SQL_REDO` (continuation rows joined) and `USERNAME` of the DML rows of
//! open transactions, handed over by the identity of the event they become
//! and dropped when their transaction ends. The envelope never carries it.

use std::collections::{HashMap, VecDeque};

use super::event::ChangeEvent;
use super::metrics::RedoDetail;
use super::row::{LogMinerRow, OperationCode, Scn};

/// Where a row sits in the redo: what a change event keeps of its row.
type RowKey = (Scn, Option<String>, u64);

#[derive(Debug, Default)]
struct Kept {
    sql_redo: String,
    username: Option<String>,
}

/// Redo text of the rows of open transactions, bounded in bytes.
#[derive(Debug)]
pub struct RedoBook {
    by_xid: HashMap<String, HashMap<RowKey, VecDeque<Kept>>>,
    /// The row whose SQL_REDO goes on in the next row (CSF = 1).
    continuing: Option<(String, RowKey)>,
    bytes: usize,
    max_bytes: usize,
    /// Rows not kept because the book was full.
    pub dropped: u64,
    out: Vec<RedoDetail>,
}

impl RedoBook {
    pub fn new(max_bytes: usize) -> Self {
        Self {
            by_xid: HashMap::new(),
            continuing: None,
            bytes: 0,
            max_bytes,
            dropped: 0,
            out: Vec::new(),
        }
    }

    /// Notes a row before the buffer takes it.
    pub fn record(&mut self, row: &LogMinerRow) {
        if let Some((xid, key)) = self.continuing.take() {
            // The continuation of the previous row's statement.
            if xid == row.xid {
                let text = row.sql_redo.as_deref().unwrap_or("");
                if let Some(kept) = self
                    .by_xid
                    .get_mut(&xid)
                    .and_then(|m| m.get_mut(&key))
                    .and_then(|q| q.back_mut())
                {
                    kept.sql_redo.push_str(text);
                    self.bytes += text.len();
                }
                if row.csf {
                    self.continuing = Some((xid, key));
                }
                return;
            }
        }
        if !row.operation_code.is_dml() || row.rollback {
            return;
        }
        let text = row.sql_redo.clone().unwrap_or_default();
        let size = text.len() + row.username.as_ref().map_or(0, String::len) + 64;
        if self.bytes + size > self.max_bytes {
            self.dropped += 1;
            return;
        }
        self.bytes += size;
        let key = (row.scn, row.rs_id.clone(), row.ssn);
        self.by_xid
            .entry(row.xid.clone())
            .or_default()
            .entry(key.clone())
            .or_default()
            .push_back(Kept {
                sql_redo: text,
                username: row.username.clone(),
            });
        if row.csf {
            self.continuing = Some((row.xid.clone(), key));
        }
    }

    /// Notes a row after the buffer took it: a transaction's end drops
    /// what is left of it (rolled-back statements, or all of a rollback).
    pub fn after(&mut self, row: &LogMinerRow) {
        if matches!(
            row.operation_code,
            OperationCode::Commit | OperationCode::Rollback
        ) {
            self.forget(&row.xid);
        }
    }

    /// Matches an emitted change with its row's text.
    pub fn emitted(&mut self, c: &ChangeEvent) {
        let key = (c.source.scn, c.source.rs_id.clone(), c.source.ssn);
        let Some(kept) = self
            .by_xid
            .get_mut(&c.source.xid)
            .and_then(|m| m.get_mut(&key))
            .and_then(VecDeque::pop_front)
        else {
            return;
        };
        self.bytes = self.bytes.saturating_sub(
            kept.sql_redo.len() + kept.username.as_ref().map_or(0, String::len) + 64,
        );
        self.out.push(RedoDetail {
            commit_scn: c.source.commit_scn,
            xid: c.source.xid.clone(),
            index: c.index,
            sql_redo: Some(kept.sql_redo).filter(|s| !s.is_empty()),
            username: kept.username,
        });
    }

    fn forget(&mut self, xid: &str) {
        if let Some(rows) = self.by_xid.remove(xid) {
            let freed: usize = rows
                .values()
                .flatten()
                .map(|k| k.sql_redo.len() + k.username.as_ref().map_or(0, String::len) + 64)
                .sum();
            self.bytes = self.bytes.saturating_sub(freed);
        }
    }

    /// Drops the text of transactions the buffer no longer holds (abandoned
    /// ones, or all after a restart from the checkpoint).
    pub fn retain_open<'a>(&mut self, open: impl IntoIterator<Item = &'a str>) {
        let open: std::collections::HashSet<&str> = open.into_iter().collect();
        let gone: Vec<String> = self
            .by_xid
            .keys()
            .filter(|x| !open.contains(x.as_str()))
            .cloned()
            .collect();
        for xid in gone {
            self.forget(&xid);
        }
    }

    /// The details matched since the last call.
    pub fn take(&mut self) -> Vec<RedoDetail> {
        std::mem::take(&mut self.out)
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::event::{Op, SnapshotMark, SourcePosition};

    fn row(scn: Scn, op: OperationCode, sql: &str, csf: bool) -> LogMinerRow {
        LogMinerRow {
            scn,
            xid: "0A000B00C0000000".into(),
            operation_code: op,
            rs_id: Some(format!(" 0x{scn:06x}.0001.0010 ")),
            ssn: 0,
            csf,
            sql_redo: Some(sql.into()),
            username: Some("APP".into()),
            ..LogMinerRow::default()
        }
    }

    fn change(scn: Scn, index: u32) -> ChangeEvent {
        ChangeEvent {
            op: Op::Create,
            before: None,
            after: None,
            source: SourcePosition {
                xid: "0A000B00C0000000".into(),
                scn,
                commit_scn: 90,
                rs_id: Some(format!(" 0x{scn:06x}.0001.0010 ")),
                ..SourcePosition::default()
            },
            snapshot: SnapshotMark::Stream,
            partial: false,
            commit_ts_ms: 0,
            index,
            table_order: 1,
        }
    }

    #[test]
    fn emitted_changes_get_their_rows_text_joined_across_continuation_rows() {
        let mut book = RedoBook::new(1 << 20);
        book.record(&row(
            10,
            OperationCode::Insert,
            "insert into \"APP\".\"T\" values ('a",
            true,
        ));
        book.record(&row(10, OperationCode::Insert, "bc');", false));
        book.record(&row(
            11,
            OperationCode::Delete,
            "delete from \"APP\".\"T\";",
            false,
        ));
        book.emitted(&change(10, 0));
        let d = book.take();
        assert_eq!(d.len(), 1);
        assert_eq!(
            d[0].sql_redo.as_deref(),
            Some("insert into \"APP\".\"T\" values ('abc');")
        );
        assert_eq!(d[0].username.as_deref(), Some("APP"));
        assert_eq!((d[0].commit_scn, d[0].index), (90, 0));
        assert!(book.bytes() > 0, "the delete is still held");
        book.after(&row(12, OperationCode::Commit, "commit;", false));
        assert_eq!(book.bytes(), 0, "the transaction's end frees the rest");
    }

    #[test]
    fn a_full_book_drops_new_rows_and_counts_them() {
        let mut book = RedoBook::new(100);
        book.record(&row(10, OperationCode::Insert, &"x".repeat(30), false));
        book.record(&row(11, OperationCode::Insert, &"y".repeat(30), false));
        assert_eq!(book.dropped, 1);
        book.retain_open(std::iter::empty());
        assert_eq!(book.bytes(), 0, "a transaction no longer open is forgotten");
    }
}
