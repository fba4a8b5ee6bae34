//! The archiver (ARCn): archived log copies per destination, their file
//! names, fast recovery area space, retention and deletion (RMAN or an
//! operator removing files), which the control file keeps showing as
//! deleted rows of V$ARCHIVED_LOG.

use chrono::{Duration, NaiveDateTime};

use crate::engine::row::Scn;
use crate::source::inventory::ArchivedLog;

use super::Model;

/// The online log a switch just closed, as the archiver copies it.
pub(super) struct ClosedLog {
    pub(super) thread_index: usize,
    pub(super) group: usize,
    pub(super) thread: u16,
    pub(super) sequence: u64,
    pub(super) first_change: Scn,
    pub(super) first_time: Option<NaiveDateTime>,
    pub(super) next_change: Scn,
    pub(super) next_time: NaiveDateTime,
}

impl Model {
    /// Hands a closed log to the archiver: copied now, or, when copies take
    /// `redo.archive_copy_s`, once the copies queued before it and its own
    /// are done (one ARCn, so one copy at a time).
    pub(super) fn queue_archive(&mut self, log: ClosedLog) {
        let copy_ms = (self.scenario.redo.archive_copy_s * 1000.0).round() as i64;
        if copy_ms <= 0 {
            self.archive_log(&log);
            return;
        }
        let start = self
            .archive_queue
            .back()
            .map_or(self.now_ms, |(due, _)| (*due).max(self.now_ms));
        self.archive_queue.push_back((start + copy_ms, log));
    }

    /// Whether the archiver still has to copy this online group.
    pub(super) fn copy_queued(&self, thread_index: usize, group: usize) -> bool {
        self.archive_queue
            .iter()
            .any(|(_, l)| l.thread_index == thread_index && l.group == group)
    }

    /// Finishes the copies due by now; a switch that waited for one of them
    /// then goes ahead.
    pub(super) fn archive_due(&mut self) {
        let mut copied = false;
        while self
            .archive_queue
            .front()
            .is_some_and(|(due, _)| *due <= self.now_ms)
        {
            if let Some((_, log)) = self.archive_queue.pop_front() {
                self.archive_log(&log);
                copied = true;
            }
        }
        if !copied {
            return;
        }
        self.after_archive();
        if std::mem::take(&mut self.switch_waiting) {
            for ti in 0..self.threads.len() {
                if self.threads[ti].bytes_used >= self.scenario.redo.group_bytes {
                    self.switch_log(ti);
                }
            }
        }
    }

    /// Retention and the memory cap, which a new archived copy may trigger.
    pub(super) fn after_archive(&mut self) {
        self.apply_retention();
        self.prune_records();
        self.bound_memory();
    }

    /// Copies the log a switch just closed to every valid destination. A
    /// pending archive-gap fault deletes the copies as soon as they exist;
    /// a full recovery area fails its destination with ORA-19809. The group
    /// counts as archived only if some copy was written.
    pub(super) fn archive_log(&mut self, log: &ClosedLog) {
        let resetlogs = self.scenario.instance.resetlogs_change;
        let group_bytes = self.scenario.redo.group_bytes;
        let delete_now = self.gap_pending > 0;
        if delete_now {
            self.gap_pending -= 1;
        }
        let mut written = false;
        for d in self.scenario.redo.destinations.clone() {
            if d.status != "VALID" || self.dest_errors.contains_key(&d.id) {
                continue;
            }
            let name = self.archive_name(&d.destination, log.thread, log.sequence, log.next_time);
            let in_fra = d.destination == "USE_DB_RECOVERY_FILE_DEST";
            let inst = &self.scenario.instance;
            if in_fra
                && inst.recovery_area_used + self.fra_archive_bytes + group_bytes
                    > inst.recovery_area_size
            {
                self.dest_errors.insert(
                    d.id,
                    "ORA-19809: limit exceeded for recovery files".to_string(),
                );
                continue;
            }
            written = true;
            if in_fra && !delete_now {
                self.fra_archive_bytes += group_bytes;
            }
            self.archived.push(ArchivedLog {
                name: if delete_now { None } else { Some(name) },
                dest_id: d.id,
                thread: log.thread,
                sequence: log.sequence,
                first_change: log.first_change,
                next_change: log.next_change,
                first_time: log.first_time,
                next_time: Some(log.next_time),
                status: if delete_now { "D".into() } else { "A".into() },
                deleted: delete_now,
                archived: true,
                resetlogs_change: resetlogs,
                bytes: group_bytes,
            });
        }
        if let Some(g) = self.threads[log.thread_index].groups.get_mut(log.group) {
            g.archived = written;
        }
    }

    /// Keeps the redo held in memory under `redo.memory_records` by deleting
    /// the oldest archived sequences, which the inventory then shows as
    /// deleted: a session that needs them fails with ORA-01291 rather than
    /// reading silently missing redo.
    pub(super) fn bound_memory(&mut self) {
        let cap = self.scenario.redo.memory_records;
        while self.records.len() > cap {
            let Some((thread, seq)) = self.records.front().map(|r| (r.thread, r.seq)) else {
                break;
            };
            let online = self
                .threads
                .iter()
                .any(|t| t.thread == thread && t.groups.iter().any(|g| g.seq == Some(seq)));
            if online {
                // The oldest redo is still in an online log: nothing to give up.
                break;
            }
            for i in 0..self.archived.len() {
                if self.archived[i].thread == thread && self.archived[i].sequence == seq {
                    self.delete_archive(i);
                }
            }
            self.prune_records();
        }
    }

    fn archive_name(&self, dest: &str, thread: u16, seq: u64, now: NaiveDateTime) -> String {
        let db = &self.scenario.instance.db_name;
        if dest == "USE_DB_RECOVERY_FILE_DEST" {
            // Oracle-managed file names in the fast recovery area.
            let tag = seq.wrapping_mul(2_654_435_761) % 0x1_0000_0000;
            return format!(
                "/u01/app/oracle/fast_recovery_area/{db}/archivelog/{}/o1_mf_{thread}_{seq}_{tag:08x}_.arc",
                now.format("%Y_%m_%d")
            );
        }
        let dir = dest
            .strip_prefix("LOCATION=")
            .unwrap_or(dest)
            .trim_end_matches('/');
        let file = self
            .scenario
            .redo
            .log_archive_format
            .replace("%t", &thread.to_string())
            .replace("%T", &format!("{thread:04}"))
            .replace("%s", &seq.to_string())
            .replace("%S", &format!("{seq:09}"))
            .replace("%r", &self.scenario.instance.resetlogs_change.to_string());
        format!("{dir}/{file}")
    }

    pub(super) fn delete_archive(&mut self, i: usize) {
        let fra: Vec<u32> = self
            .scenario
            .redo
            .destinations
            .iter()
            .filter(|d| d.destination == "USE_DB_RECOVERY_FILE_DEST")
            .map(|d| d.id)
            .collect();
        if let Some(a) = self.archived.get_mut(i) {
            if a.deleted {
                return;
            }
            if fra.contains(&a.dest_id) {
                self.fra_archive_bytes = self.fra_archive_bytes.saturating_sub(a.bytes);
            }
            a.name = None;
            a.deleted = true;
            a.status = "D".into();
        }
    }

    pub(super) fn apply_retention(&mut self) {
        let Some(ret) = self.scenario.redo.archive_retention_s else {
            return;
        };
        let limit = self.now_sec() - Duration::seconds(ret as i64);
        for i in 0..self.archived.len() {
            if !self.archived[i].deleted && self.archived[i].next_time.is_some_and(|t| t < limit) {
                self.delete_archive(i);
            }
        }
        // V$ARCHIVED_LOG keeps deleted rows until the control file reuses them.
        if self.archived.len() > 5000 {
            self.archived.drain(..1000);
        }
    }
}
