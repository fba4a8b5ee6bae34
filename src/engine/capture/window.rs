//! Planning each window's LogMiner session: where it starts, which logs
//! it reads (from an inventory cached while no thread switches logs),
//! starting or reusing the session, and the archived logs ahead of the
//! read position that the database no longer has.

use std::collections::BTreeSet;

use chrono::NaiveDateTime;

use super::{CachedInventory, Capture, CaptureError};
use crate::engine::metrics::MissingArchive;
use crate::engine::port::{ArchivedLog, LogInventory, RedoSource, RedoThread, SourceError};
use crate::engine::row::Scn;
use crate::engine::session::{self, PlanError, SessionPlan};
use crate::engine::txn::TxnWarning;

fn threads_key(threads: &[RedoThread]) -> Vec<(u16, u64, String, String)> {
    threads
        .iter()
        .map(|t| {
            (
                t.thread,
                t.current_sequence,
                t.status.clone(),
                t.enabled.clone(),
            )
        })
        .collect()
}

impl<S: RedoSource> Capture<S> {
    /// Where the next session starts reading: the buffer's restart SCN
    /// (the oldest open transaction's start), never above what was mined.
    fn session_floor(&self) -> Scn {
        self.buffer.restart_scn().min(self.mined_scn)
    }

    /// The session starts after the buffer's restart SCN (the oldest open
    /// transaction's start) while `SCN > mined_scn` keeps rows already read
    /// out, so LogMiner sees each open transaction's start and gives its
    /// undo rows their full XID. When the logs back there are gone, the
    /// session starts at the window and the buffer matches such undo rows
    /// by undo segment and slot.
    ///
    /// At a first start, the transactions already under way are read from
    /// their start; when their logs are gone the window starts at the start
    /// point and their events come out marked partial.
    fn plan(&mut self, inventory: &LogInventory, upper: Scn) -> Result<SessionPlan, PlanError> {
        let cfg = &self.config.planner;
        let restart = self.session_floor();
        let planned = session::plan_from(inventory, restart, self.mined_scn, upper, cfg);
        let gone = matches!(
            planned,
            Err(PlanError::StartScnNotCovered { .. } | PlanError::SequenceGap { .. })
        );
        match self.first_start.take() {
            Some(start) if gone => {
                self.buffer.forget_in_flight();
                self.mined_scn = self.mined_scn.max(start);
                self.warnings
                    .push(TxnWarning::InFlightLogsMissing { start_scn: start });
                session::plan(inventory, self.mined_scn, upper, cfg)
            }
            _ if gone && restart < self.mined_scn => {
                session::plan(inventory, self.mined_scn, upper, cfg)
            }
            _ => planned,
        }
    }

    /// Whether the window up to `upper` is not worth a session: empty or
    /// inverted (START_LOGMNR would raise ORA-01281), or narrower than
    /// `min_window_scns` the first time the redo end is seen there.
    pub(super) fn window_is_idle(&mut self, upper: Scn) -> bool {
        if upper <= self.mined_scn {
            return true;
        }
        let narrow = upper - self.mined_scn < self.config.polling.min_window_scns
            && Some(upper) != self.config.until_scn;
        if narrow && self.waited_at != Some(upper) {
            self.waited_at = Some(upper);
            return true;
        }
        self.waited_at = None;
        false
    }

    /// Plans `(mined_scn, upper]` from the cached inventory when no thread
    /// switched logs since it was read, else from a fresh one. A plan that
    /// fails on a cached inventory is tried once more on a fresh one before
    /// the failure counts.
    pub(super) fn plan_window(
        &mut self,
        threads: &[RedoThread],
        upper: Scn,
    ) -> Result<SessionPlan, CaptureError> {
        let key = threads_key(threads);
        let cached = self
            .inventory
            .as_ref()
            .is_some_and(|c| c.key == key && c.from_scn <= self.session_floor());
        if !cached {
            self.refresh_inventory(threads)?;
        }
        let planned = self.plan_from_cache(threads, upper);
        match planned {
            Err(_) if cached => {
                self.refresh_inventory(threads)?;
                self.plan_from_cache(threads, upper)
            }
            other => other,
        }
    }

    fn plan_from_cache(
        &mut self,
        threads: &[RedoThread],
        upper: Scn,
    ) -> Result<SessionPlan, CaptureError> {
        let Some(cache) = self.inventory.as_mut() else {
            return Err(CaptureError::Source(SourceError::Invalid(
                "no log inventory was read".into(),
            )));
        };
        cache.inventory.threads = threads.to_vec();
        if cache.inventory.resetlogs_change != self.incarnation.resetlogs_change {
            return Err(CaptureError::IncarnationChanged {
                stored: self.incarnation,
                current: self.source.incarnation()?,
            });
        }
        // `plan` needs the whole capture; the cache is put back afterwards.
        let Some(cache) = self.inventory.take() else {
            return Err(CaptureError::Source(SourceError::Invalid(
                "no log inventory was read".into(),
            )));
        };
        let planned = self.plan(&cache.inventory, upper);
        self.inventory = Some(cache);
        Ok(planned?)
    }

    /// Reads the inventory for sessions starting after the restart SCN:
    /// V$ARCHIVED_LOG only from the chosen destination and above the SCN.
    fn refresh_inventory(&mut self, threads: &[RedoThread]) -> Result<(), CaptureError> {
        self.inventory = None;
        let from_scn = self.session_floor();
        let mut inventory = self.source.online_inventory()?;
        inventory.threads = threads.to_vec();
        match session::choose_destination(&inventory, &self.config.planner) {
            Ok(Some(dest_id)) => {
                inventory.archived = self.source.archived_logs_from(from_scn, dest_id)?;
            }
            Ok(None) => {}
            // No usable destination: whether that matters depends on every
            // archived row, so read them all to let the planner say why.
            Err(_) => inventory = self.source.log_inventory()?,
        }
        self.note_archives_ahead(&inventory);
        if let Some(now) = self.status.current_time {
            let mut redo = super::timing::redo_figures(&inventory, now);
            redo.switches_per_hour = self.switch_rate.or(redo.switches_per_hour);
            self.status.mining.redo = redo;
        }
        self.inventory = Some(CachedInventory {
            key: threads_key(threads),
            from_scn,
            inventory,
        });
        Ok(())
    }

    /// Starts (or reuses) the LogMiner session for `plan`. A session whose
    /// files changed, or that has lived `max_session_age`, is ended first.
    /// A log gone between reading the inventory and START_LOGMNR (archiver
    /// or RMAN racing us: ORA-01291, ORA-00310, ORA-01284) is retried once
    /// on a fresh inventory.
    pub(super) fn start_session(
        &mut self,
        plan: SessionPlan,
        now: NaiveDateTime,
    ) -> Result<SessionPlan, CaptureError> {
        match self.try_start(&plan, now) {
            Err(CaptureError::Source(e)) if matches!(e.ora_code(), Some(1291 | 310 | 1284)) => {
                let _ = self.source.end_session();
                self.last_plan = None;
                self.session_since = None;
                let threads = self.source.redo_threads()?;
                self.refresh_inventory(&threads)?;
                let upper = plan.end_scn;
                let plan = self.plan_from_cache(&threads, upper)?;
                if plan.is_empty() {
                    return Err(CaptureError::Source(e));
                }
                self.try_start(&plan, now)?;
                Ok(plan)
            }
            Err(e) => Err(e),
            Ok(()) => Ok(plan),
        }
    }

    fn try_start(&mut self, plan: &SessionPlan, now: NaiveDateTime) -> Result<(), CaptureError> {
        let max_age = chrono::Duration::from_std(self.config.polling.max_session_age)
            .unwrap_or(chrono::Duration::MAX);
        let young = self
            .session_since
            .is_some_and(|since| now - since < max_age);
        // Reuse the running session while the log set stays the same: only
        // the SCN range changes. A new set means END_LOGMNR and new files.
        let reuse = young && self.last_plan.as_ref().is_some_and(|p| p.same_logs(plan));
        if !reuse && self.last_plan.take().is_some() {
            self.source.end_session()?;
        }
        if !reuse {
            self.session_since = Some(now);
        }
        tracing::debug!(
            reuse,
            start = plan.session_start,
            from = plan.from_scn,
            to = plan.end_scn,
            logs = %plan
                .logs
                .iter()
                .map(|l| format!("t{}#{}", l.thread, l.sequence))
                .collect::<Vec<_>>()
                .join(","),
            "mining session"
        );
        self.source.start_session(&plan.request())?;
        self.last_plan = Some(plan.clone());
        Ok(())
    }

    /// Looks for archived logs past the read position that the database
    /// no longer has, from a fresh V$ARCHIVED_LOG reading; the status lists
    /// them. Capture itself goes on: it stops only when it reaches one.
    pub fn check_archives_ahead(&mut self) -> Result<(), SourceError> {
        let threads = self.source.redo_threads()?;
        let mut inventory = self.source.online_inventory()?;
        inventory.threads = threads;
        match session::choose_destination(&inventory, &self.config.planner) {
            Ok(Some(dest_id)) => {
                inventory.archived = self.source.archived_logs_from(self.mined_scn, dest_id)?;
            }
            Ok(None) => {}
            Err(_) => inventory = self.source.log_inventory()?,
        }
        self.note_archives_ahead(&inventory);
        Ok(())
    }

    fn note_archives_ahead(&mut self, inventory: &LogInventory) {
        self.status.archives_missing_ahead = missing_ahead(inventory, self.mined_scn);
        self.archives_checked = Some(self.mined_scn);
    }
}

/// Archived logs past the one holding `mined_scn` that the database no
/// longer has: per thread, each sequence from the one being mined up to
/// the oldest online log must have an available row in V$ARCHIVED_LOG
/// (of the current incarnation). A sequence with only deleted or
/// unavailable rows, or with no row at all, is missing.
pub(super) fn missing_ahead(inventory: &LogInventory, mined_scn: Scn) -> Vec<MissingArchive> {
    let current = |a: &&ArchivedLog| {
        inventory.resetlogs_change == 0 || a.resetlogs_change == inventory.resetlogs_change
    };
    let mut out = Vec::new();
    let mut threads: BTreeSet<u16> = inventory.archived.iter().map(|a| a.thread).collect();
    threads.extend(inventory.online.iter().map(|o| o.thread));
    for thread in threads {
        let rows: Vec<&ArchivedLog> = inventory
            .archived
            .iter()
            .filter(current)
            .filter(|a| a.thread == thread)
            .collect();
        let Some(online_min) = inventory
            .online
            .iter()
            .filter(|o| o.thread == thread && o.status != "UNUSED")
            .map(|o| o.sequence)
            .min()
        else {
            continue;
        };
        // The log being mined: the one holding the read position, else
        // the oldest listed that is still needed.
        let mining = rows
            .iter()
            .filter(|a| a.first_change <= mined_scn && mined_scn < a.next_change)
            .map(|a| a.sequence)
            .min()
            .or_else(|| {
                rows.iter()
                    .filter(|a| a.next_change > mined_scn)
                    .map(|a| a.sequence)
                    .min()
            });
        let Some(mining) = mining else {
            continue;
        };
        for seq in mining + 1..online_min {
            let copies: Vec<&&ArchivedLog> = rows.iter().filter(|a| a.sequence == seq).collect();
            if copies.iter().any(|a| a.is_available()) {
                continue;
            }
            let state = if copies.is_empty() {
                "NOT LISTED"
            } else if copies.iter().any(|a| a.deleted || a.status == "D") {
                "DELETED"
            } else {
                "UNAVAILABLE"
            };
            out.push(MissingArchive {
                thread,
                sequence: seq,
                state,
            });
        }
    }
    out
}
