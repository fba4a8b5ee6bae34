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
use crate::engine::port::{RedoSource, SourceError};
use crate::engine::rowid::decode_rowid;

impl Snapshotter {
    /// Compares table `t`'s segments with those its read saw last (tables
    /// read by key are not checked).
    pub(super) fn check_segments<S: RedoSource + ?Sized>(
        &mut self,
        source: &mut S,
        t: usize,
    ) -> Result<(), SourceError> {
        let table = self.progress.tables[t].table.clone();
        if self.config.keys.contains_key(&table) {
            return Ok(());
        }
        let Some(now) = source.segment_ids(&table)? else {
            return Ok(());
        };
        let tp = &mut self.progress.tables[t];
        let Some(before) = tp.segments.replace(now.clone()) else {
            return Ok(());
        };
        if before == now {
            return Ok(());
        }
        source.forget_segments(&table);
        let reached = tp
            .after_key
            .as_ref()
            .and_then(|k| k.first())
            .and_then(|k| decode_rowid(k))
            .map(|p| p.data_object_id);
        let Some(reached) = reached else {
            return Ok(());
        };
        let replaced: Vec<u64> = before
            .into_iter()
            .filter(|id| *id <= reached && !now.contains(id))
            .collect();
        if replaced.is_empty() {
            return Ok(());
        }
        tp.after_key = None;
        tp.starts_over = true;
        self.notices
            .push(SnapshotNotice::SegmentsReplaced { table, replaced });
        Ok(())
    }
}
