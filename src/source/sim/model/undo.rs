//! Undo: transaction ids (undo segment, slot, sequence), the committed
//! before images the undo tablespace keeps (for `undo_retention_s` while
//! they fit in `undo_tablespace_mb`), the SCN below which they are lost,
//! and `SELECT ... AS OF SCN` reads built from them.

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{Duration, NaiveDateTime};

use crate::engine::row::{format_xid, Scn};
use crate::engine::rowid::{decode_rowid, RowidPos};
use crate::source::sim::value::Value;

use super::Model;

/// A row as an `AS OF` read by ROWID finds it: its ROWID and values.
type RowAt = (Arc<str>, Arc<Vec<Value>>);

/// A committed change kept for `AS OF SCN` reads while undo retains it.
#[derive(Debug, Clone)]
pub(super) struct UndoEntry {
    pub(super) commit_scn: Scn,
    pub(super) commit_time: NaiveDateTime,
    pub(super) key: i64,
    pub(super) before: Option<Arc<Vec<Value>>>,
    /// Where the row was: an `AS OF` read by ROWID finds a deleted row
    /// there.
    pub(super) rowid: Arc<str>,
    /// Bytes this undo record takes in the undo tablespace.
    pub(super) bytes: u32,
}

/// An undo record's own bytes besides the before image (header, row
/// address, column count): what an INSERT's undo (delete the row) takes.
const UNDO_RECORD_OVERHEAD: u32 = 64;

impl UndoEntry {
    /// Bytes an undo record with this before image takes.
    pub(super) fn size_of(before: Option<&[Value]>) -> u32 {
        let image: usize = before.map_or(0, |b| b.iter().map(Value::redo_len).sum());
        UNDO_RECORD_OVERHEAD.saturating_add(u32::try_from(image).unwrap_or(u32::MAX))
    }
}

impl Model {
    /// XIDs come from undo segment transaction tables: the slot is reused,
    /// the sequence (wrap) grows.
    pub(super) fn new_xid(&mut self) -> Arc<str> {
        self.next_usn_slot += 1;
        self.next_sqn += 1;
        if self.scenario.is_dm() {
            // DM8's XID is a BINARY(8) transaction number, printed as 16
            // upper-case hex digits.
            return Arc::from(format!("{:016X}", 0x4600 + u64::from(self.next_usn_slot)));
        }
        let usn = (self.next_usn_slot % 10 + 1) as u16;
        let slot = ((self.next_usn_slot / 10) % 34) as u16;
        Arc::from(format_xid(usn, slot, self.next_sqn))
    }

    /// Keeps committed undo for `undo_retention_s`, then, while the undo
    /// kept is over `undo_tablespace_mb`, overwrites the oldest of any table
    /// even though retention asked to keep it (Oracle without RETENTION
    /// GUARANTEE): reads that needed it then raise ORA-01555.
    pub(super) fn prune_undo(&mut self) {
        let limit =
            self.now_sec() - Duration::seconds(self.scenario.instance.undo_retention_s as i64);
        let mut freed = 0u64;
        for t in &mut self.tables {
            while let Some(u) = t.undo.front() {
                if u.commit_time >= limit {
                    break;
                }
                t.undo_lost_scn = t.undo_lost_scn.max(u.commit_scn);
                freed += u64::from(u.bytes);
                t.undo.pop_front();
            }
        }
        self.undo_bytes = self.undo_bytes.saturating_sub(freed);
        let cap = self.undo_capacity();
        while self.undo_bytes > cap {
            // The oldest commit across tables goes first, as undo segments
            // are reused in the order they were written.
            let oldest = self
                .tables
                .iter()
                .enumerate()
                .filter_map(|(i, t)| t.undo.front().map(|u| (u.commit_scn, i)))
                .min();
            let Some((_, i)) = oldest else {
                self.undo_bytes = 0;
                break;
            };
            let t = &mut self.tables[i];
            if let Some(u) = t.undo.pop_front() {
                t.undo_lost_scn = t.undo_lost_scn.max(u.commit_scn);
                self.undo_bytes = self.undo_bytes.saturating_sub(u64::from(u.bytes));
            }
        }
    }

    /// Bytes of committed undo the tablespace holds at most.
    pub fn undo_capacity(&self) -> u64 {
        self.scenario
            .instance
            .undo_tablespace_mb
            .saturating_mul(1 << 20)
    }

    /// Bytes of committed undo held now, and how many undo records.
    pub fn undo_usage(&self) -> (u64, usize) {
        (
            self.undo_bytes,
            self.tables.iter().map(|t| t.undo.len()).sum(),
        )
    }

    /// Undo lost all at once (the `undo_overwritten` fault).
    pub(super) fn overwrite_all_undo(&mut self) {
        let scn = self.scn;
        for t in &mut self.tables {
            t.undo.clear();
            t.undo_lost_scn = scn;
        }
        self.undo_bytes = 0;
    }

    /// `SELECT ... AS OF SCN` for one chunk, in key order.
    #[allow(clippy::type_complexity)]
    pub fn snapshot_rows(
        &self,
        t: usize,
        as_of: Scn,
        after: Option<i64>,
        limit: usize,
    ) -> Vec<(i64, Arc<Vec<Value>>)> {
        let table = &self.tables[t];
        // The as-of image of each key changed after `as_of`: the before image of
        // its oldest later change (committed first, then still-open ones).
        let mut over: BTreeMap<i64, Option<Arc<Vec<Value>>>> = BTreeMap::new();
        for u in table.undo.iter().filter(|u| u.commit_scn > as_of) {
            over.entry(u.key).or_insert_with(|| u.before.clone());
        }
        for txn in &self.open {
            for c in txn.changes.iter().filter(|c| c.table == t) {
                over.entry(c.key).or_insert_with(|| c.before.clone());
            }
        }
        let lo = after.map_or(i64::MIN, |a| a.saturating_add(1));
        let mut out = Vec::with_capacity(limit.min(10_000));
        let mut cur = table.rows.range(lo..).peekable();
        let mut ov = over.range(lo..).peekable();
        while out.len() < limit {
            let next_cur = cur.peek().map(|(k, _)| **k);
            let next_ov = ov.peek().map(|(k, _)| **k);
            let k = match (next_cur, next_ov) {
                (None, None) => break,
                (Some(a), None) => a,
                (None, Some(b)) => b,
                (Some(a), Some(b)) => a.min(b),
            };
            if next_cur == Some(k) {
                cur.next();
            }
            if next_ov == Some(k) {
                if let Some((_, v)) = ov.next() {
                    if let Some(v) = v {
                        out.push((k, v.clone()));
                    }
                    continue;
                }
            }
            if let Some(r) = table.rows.get(&k) {
                out.push((k, r.values.clone()));
            }
        }
        out
    }

    /// `SELECT ..., ROWIDTOCHAR(ROWID) ... AS OF SCN WHERE ROWID > :after
    /// ORDER BY ROWID` for a table read without a key: the rows as of
    /// `as_of` past `after`, in ROWID order (data object id, file, block,
    /// row), with their ROWIDs.
    pub fn snapshot_rows_by_rowid(
        &self,
        t: usize,
        as_of: Scn,
        after: Option<RowidPos>,
        limit: usize,
    ) -> Vec<(Arc<str>, Arc<Vec<Value>>)> {
        let table = &self.tables[t];
        // Where and what each row changed after `as_of` was: the before
        // image of its oldest later change, at the ROWID it had.
        let mut over: BTreeMap<i64, Option<RowAt>> = BTreeMap::new();
        for u in table.undo.iter().filter(|u| u.commit_scn > as_of) {
            over.entry(u.key)
                .or_insert_with(|| u.before.clone().map(|b| (u.rowid.clone(), b)));
        }
        for txn in &self.open {
            for c in txn.changes.iter().filter(|c| c.table == t) {
                over.entry(c.key)
                    .or_insert_with(|| c.before.clone().map(|b| (c.rowid.clone(), b)));
            }
        }
        let unchanged: Vec<RowAt> = table
            .rows
            .iter()
            .filter(|(k, _)| !over.contains_key(k))
            .map(|(_, r)| (r.rowid.clone(), r.values.clone()))
            .collect();
        let mut rows: Vec<(RowidPos, RowAt)> = unchanged
            .into_iter()
            .chain(over.into_values().flatten())
            .filter_map(|(rid, v)| Some((decode_rowid(&rid)?, (rid, v))))
            .filter(|(pos, _)| after.is_none_or(|a| *pos > a))
            .collect();
        rows.sort_unstable_by_key(|(pos, _)| *pos);
        rows.truncate(limit);
        rows.into_iter().map(|(_, r)| r).collect()
    }

    /// The data object ids of the segments holding table `t`'s rows now:
    /// the table's own, or each live partition's.
    pub fn segment_ids(&self, t: usize) -> Vec<u64> {
        let tb = &self.tables[t];
        match &tb.partitioning {
            Some(p) => p
                .partitions
                .iter()
                .filter(|x| !x.dropped)
                .map(|x| x.data_obj_id)
                .collect(),
            None => vec![tb.data_obj_id],
        }
    }

    /// The SCN above which `AS OF` reads of table `t` still find their undo.
    pub fn undo_floor(&self, t: usize) -> Scn {
        self.tables.get(t).map_or(0, |x| x.undo_lost_scn)
    }
}
