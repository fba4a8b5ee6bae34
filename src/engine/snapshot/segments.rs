//! Segments replaced under a read by ROWID. A table without a key is read
//! in ROWID order, and a ROWID names a place in one segment: after a MOVE,
//! a SHRINK into a new segment, a TRUNCATE or partition maintenance, the
//! rows of a replaced segment come back under a new data object id, which
//! sorts after every old one. Rows the read had passed would be read
//! again, and a source that caches extents would read the old, empty
//! ranges and call the table done. So the segments are compared before
//! each chunk: one replaced behind the read's position starts the read
//! over (a truncate event first, so a consumer drops what it was given);
//! one replaced ahead of it only needs fresh extents.

use super::{SnapshotNotice, Snapshotter};
use crate::engine::rowid::decode_rowid;

impl Snapshotter {
    /// Takes the segments a read of table `t` found: when some it had
    /// passed were replaced, the read started over (see [`replaced_behind`]).
    pub(super) fn segments_seen(&mut self, t: usize, now: Vec<u64>) {
        let table = self.progress.tables[t].table.clone();
        let tp = &mut self.progress.tables[t];
        let Some(before) = tp.segments.replace(now.clone()) else {
            return;
        };
        let replaced = replaced_behind(&before, &now, tp.after_key.as_deref());
        if replaced.is_empty() {
            return;
        }
        tp.after_key = None;
        tp.starts_over = true;
        self.notices
            .push(SnapshotNotice::SegmentsReplaced { table, replaced });
    }
}

/// The segments of `before` that a read by ROWID standing after `after`
/// had passed and that are gone from `now`: its rows there have new
/// ROWIDs, so the read starts over.
pub(super) fn replaced_behind(before: &[u64], now: &[u64], after: Option<&[String]>) -> Vec<u64> {
    let reached = after
        .and_then(<[String]>::first)
        .and_then(|k| decode_rowid(k))
        .map(|p| p.data_object_id);
    let Some(reached) = reached else {
        return Vec::new();
    };
    before
        .iter()
        .copied()
        .filter(|id| *id <= reached && !now.contains(id))
        .collect()
}
