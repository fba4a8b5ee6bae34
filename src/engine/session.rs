//! The LogMiner session planner shared by `tail` and `run`: which log files
//! to add for an SCN window, how far the window reaches, and when a session
//! can be reused.
//!
//! The rules follow what breaks in the field: one archive destination (two
//! copies of a log raise ORA-01289), the current incarnation only, no
//! sequence gap per thread (a gap is lost data, never skipped), windows sized
//! by logs rather than by a fixed SCN count (Debezium's 3.6 lesson), and never
//! CONTINUOUS_MINE, which 19c desupports (ORA-44609) and which cdcctl does not
//! need on any release because it always picks the files itself.

use std::collections::BTreeMap;

use super::port::{LogInventory, MiningOptions, SessionRequest};
use super::row::Scn;

/// How the planner chooses logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannerConfig {
    /// `V$ARCHIVE_DEST_STATUS.DEST_NAME` to read archives from; by default
    /// the first LOCAL, VALID destination.
    pub archive_dest: Option<String>,
    /// At most this many log files per thread in one window. A window that
    /// would need more ends where the last included log ends.
    pub max_logs_per_thread: usize,
}

impl Default for PlannerConfig {
    fn default() -> Self {
        Self {
            archive_dest: None,
            max_logs_per_thread: 4,
        }
    }
}

/// One file chosen for a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedLog {
    pub name: String,
    pub thread: u16,
    pub sequence: u64,
    pub first_change: Scn,
    /// `None` for the CURRENT online log.
    pub next_change: Option<Scn>,
    pub online: bool,
}

/// A session to start: files, the session's first SCN, and the SCN window
/// `(from_scn, end_scn]` of rows wanted from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionPlan {
    pub logs: Vec<PlannedLog>,
    /// `STARTSCN` of the session (inclusive), at or below `from_scn + 1`:
    /// the oldest open transaction's start, so that LogMiner resolves the
    /// full XID of its undo rows (it shows sequence FFFFFFFF for a
    /// transaction that began before the session).
    pub session_start: Scn,
    /// Rows with `SCN > from_scn` are wanted.
    pub from_scn: Scn,
    /// Rows with `SCN <= end_scn` are wanted.
    pub end_scn: Scn,
}

impl SessionPlan {
    /// The `START_LOGMNR` request for this plan.
    pub fn request(&self) -> SessionRequest {
        SessionRequest {
            log_files: self.logs.iter().map(|l| l.name.clone()).collect(),
            start_scn: self.session_start,
            end_scn: self.end_scn,
            options: mining_options(),
        }
    }

    /// Whether a running session over `other`'s files can serve this plan.
    pub fn same_logs(&self, other: &SessionPlan) -> bool {
        self.logs.len() == other.logs.len()
            && self
                .logs
                .iter()
                .zip(&other.logs)
                .all(|(a, b)| a.name == b.name)
    }
}

/// The options every cdcctl session uses, on every release.
pub fn mining_options() -> MiningOptions {
    MiningOptions {
        dict_from_online_catalog: true,
        no_rowid_in_stmt: true,
        committed_data_only: false,
        continuous_mine: false,
    }
}

/// Why no session can be planned. Each is a stop, never a silent skip.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error("no LOCAL archive destination is VALID; archived logs cannot be read")]
    NoArchiveDestination,
    #[error("archive destination `{0}` does not exist or is not VALID")]
    UnknownArchiveDestination(String),
    #[error(
        "SCN {scn} on thread {thread} is older than every available log (oldest starts at SCN {oldest}): \
         the archived logs holding it were deleted or never existed (ORA-01291)"
    )]
    StartScnNotCovered { thread: u16, scn: Scn, oldest: Scn },
    #[error(
        "archive gap on thread {thread}: {} neither archived (available) nor online",
        gap_sequences(*from, *to)
    )]
    SequenceGap { thread: u16, from: u64, to: u64 },
    #[error(
        "thread {0} has no CURRENT online log (on DM8: V$ARCH_FILE lists no ACTIVE archive \
         file, so archiving is off; see `cdcctl preflight`, check dm-arch)"
    )]
    NoCurrentLog(u16),
}

/// The sequences of a gap with the verb that agrees with them.
fn gap_sequences(from: u64, to: u64) -> String {
    let verb = if from == to { "is" } else { "are" };
    format!("{} {verb}", crate::engine::port::sequence_range(from, to))
}

impl PlanError {
    /// The source error this maps to for callers that speak `SourceError`.
    pub fn to_source_error(&self) -> crate::engine::port::SourceError {
        use crate::engine::port::SourceError;
        match self {
            PlanError::SequenceGap { thread, from, to } => SourceError::ArchiveGap {
                thread: *thread,
                missing_from: *from,
                missing_to: *to,
            },
            PlanError::StartScnNotCovered { thread, scn, .. } => SourceError::MissingLog {
                thread: *thread,
                scn: *scn,
                detail: self.to_string(),
            },
            other => SourceError::Invalid(other.to_string()),
        }
    }
}

#[derive(Debug, Clone)]
struct Candidate {
    log: PlannedLog,
}

/// Plans the session that reads `(from_scn, upper_scn]`, possibly ending
/// earlier when more logs would be needed than the config allows.
pub fn plan(
    inventory: &LogInventory,
    from_scn: Scn,
    upper_scn: Scn,
    config: &PlannerConfig,
) -> Result<SessionPlan, PlanError> {
    plan_from(inventory, from_scn, from_scn, upper_scn, config)
}

/// Like [`plan`], with the session starting after `restart_scn` (at or below
/// `from_scn`): the logs reach back to it, and the window's log limit
/// counts only logs holding SCNs above `from_scn`.
pub fn plan_from(
    inventory: &LogInventory,
    restart_scn: Scn,
    from_scn: Scn,
    upper_scn: Scn,
    config: &PlannerConfig,
) -> Result<SessionPlan, PlanError> {
    let restart_scn = restart_scn.min(from_scn);
    let dest_id = choose_destination(inventory, config)?;
    let mut logs = Vec::new();
    // Redo above the lowest LAST_REDO_CHANGE# of the open threads may still
    // sit in an instance's log buffer: LogMiner cannot see it yet, and a
    // window past it would skip it for good. This holds on a single
    // instance as much as on RAC.
    let mut end_scn = match crate::engine::port::flushed_redo_end(&inventory.threads) {
        Some(flushed) => upper_scn.min(flushed),
        None => upper_scn,
    };
    let threads: Vec<(u16, Scn)> = if inventory.threads.is_empty() {
        let mut t: Vec<u16> = inventory.online.iter().map(|l| l.thread).collect();
        t.sort_unstable();
        t.dedup();
        t.into_iter().map(|t| (t, 0)).collect()
    } else {
        // A thread enabled later (a RAC node added) has no redo before its
        // ENABLE_CHANGE#, so its logs need only cover from there.
        inventory
            .threads_with_redo(from_scn, end_scn)
            .map(|t| (t.thread, t.enable_change.saturating_sub(1)))
            .collect()
    };
    for (thread, enabled_floor) in threads {
        // The session reaches back to the restart SCN, but never before
        // the thread existed.
        let thread_from = from_scn.max(enabled_floor);
        let thread_restart = restart_scn.max(enabled_floor).min(thread_from);
        let (chosen, thread_end) = plan_thread(
            inventory,
            thread,
            dest_id,
            (thread_restart, thread_from),
            end_scn,
            config,
        )?;
        end_scn = end_scn.min(thread_end);
        logs.extend(chosen);
    }
    // A window may have shrunk on a later thread; drop files that now start past it.
    logs.retain(|l| l.first_change <= end_scn);
    logs.sort_by_key(|l| (l.thread, l.sequence));
    Ok(SessionPlan {
        logs,
        session_start: restart_scn + 1,
        from_scn,
        end_scn: end_scn.max(from_scn),
    })
}

impl SessionPlan {
    /// A window with nothing to read: `START_LOGMNR` would refuse it
    /// (ORA-01281) or return nothing.
    pub fn is_empty(&self) -> bool {
        self.end_scn <= self.from_scn || self.logs.is_empty()
    }
}

/// The archive destination whose V$ARCHIVED_LOG rows are read: the one
/// configured, else the lowest VALID LOCAL one. Rows of remote (standby)
/// destinations name a service, not a file, so they are never chosen.
/// `None` when only online logs can serve (nothing archived).
pub fn choose_destination(
    inventory: &LogInventory,
    config: &PlannerConfig,
) -> Result<Option<u32>, PlanError> {
    let valid_local =
        |d: &&crate::engine::port::ArchiveDestStatus| d.status == "VALID" && d.dest_type == "LOCAL";
    match &config.archive_dest {
        Some(name) => inventory
            .destinations
            .iter()
            .filter(valid_local)
            .find(|d| d.dest_name.eq_ignore_ascii_case(name))
            .map(|d| Some(d.dest_id))
            .ok_or_else(|| PlanError::UnknownArchiveDestination(name.clone())),
        None => {
            let first = inventory
                .destinations
                .iter()
                .filter(valid_local)
                .map(|d| d.dest_id)
                .min();
            match first {
                Some(id) => Ok(Some(id)),
                // With no archived logs at all (NOARCHIVELOG), online logs may still serve.
                None if inventory.archived.iter().all(|a| !a.is_available()) => Ok(None),
                None => Err(PlanError::NoArchiveDestination),
            }
        }
    }
}

fn plan_thread(
    inventory: &LogInventory,
    thread: u16,
    dest_id: Option<u32>,
    (restart_scn, from_scn): (Scn, Scn),
    end_scn: Scn,
    config: &PlannerConfig,
) -> Result<(Vec<PlannedLog>, Scn), PlanError> {
    let mut by_seq: BTreeMap<u64, Candidate> = BTreeMap::new();
    for a in &inventory.archived {
        if a.thread != thread
            || !a.is_available()
            || Some(a.dest_id) != dest_id
            || a.resetlogs_change != inventory.resetlogs_change
        {
            continue;
        }
        let Some(name) = &a.name else { continue };
        by_seq.entry(a.sequence).or_insert(Candidate {
            log: PlannedLog {
                name: name.clone(),
                thread,
                sequence: a.sequence,
                first_change: a.first_change,
                next_change: Some(a.next_change),
                online: false,
            },
        });
    }
    // A disabled thread has no CURRENT log; its redo up to DISABLE_CHANGE#
    // is all archived.
    let disabled = inventory
        .threads
        .iter()
        .any(|t| t.thread == thread && t.enabled == "DISABLED");
    let current = match inventory.current_log(thread) {
        Some(c) => Some(c),
        None if disabled => None,
        None => return Err(PlanError::NoCurrentLog(thread)),
    };
    let last_sequence = current.map_or(u64::MAX, |c| c.sequence);
    for o in &inventory.online {
        if o.thread != thread || o.status == "UNUSED" || o.member_files.is_empty() {
            continue;
        }
        // An archived copy is stable; an online log may be overwritten once
        // archived, so it only stands in while the archive is not there yet
        // (archiver lag) or for the CURRENT log.
        let is_current = o.status == "CURRENT";
        if by_seq.contains_key(&o.sequence) && !is_current {
            continue;
        }
        by_seq.insert(
            o.sequence,
            Candidate {
                log: PlannedLog {
                    name: o.member_files[0].clone(),
                    thread,
                    sequence: o.sequence,
                    first_change: o.first_change,
                    next_change: if is_current { None } else { o.next_change },
                    online: true,
                },
            },
        );
    }
    // Keep only logs that hold SCNs above the session's start.
    let needed: Vec<&Candidate> = by_seq
        .values()
        .filter(|c| {
            c.log.next_change.is_none_or(|n| n > restart_scn + 1) && c.log.sequence <= last_sequence
        })
        .collect();
    let Some(first) = needed.first() else {
        return Err(PlanError::StartScnNotCovered {
            thread,
            scn: restart_scn + 1,
            oldest: current.map_or(restart_scn + 1, |c| c.first_change),
        });
    };
    if first.log.first_change > restart_scn + 1 {
        // The log that holds restart_scn + 1 is missing. When V$ARCHIVED_LOG
        // still has its (deleted) record, or an older log is still there, the
        // SCN is not older than every log: name the sequences that are gone.
        let deleted = inventory
            .archived
            .iter()
            .filter(|a| {
                a.thread == thread
                    && !a.is_available()
                    && Some(a.dest_id) == dest_id
                    && a.resetlogs_change == inventory.resetlogs_change
                    && a.sequence < first.log.sequence
                    && a.next_change > restart_scn + 1
            })
            .map(|a| a.sequence)
            .min();
        let after_older = by_seq
            .range(..first.log.sequence)
            .next_back()
            .map(|(seq, _)| seq + 1);
        if let Some(from) = deleted.or(after_older) {
            return Err(PlanError::SequenceGap {
                thread,
                from,
                to: first.log.sequence - 1,
            });
        }
        return Err(PlanError::StartScnNotCovered {
            thread,
            scn: restart_scn + 1,
            oldest: by_seq
                .values()
                .map(|c| c.log.first_change)
                .min()
                .unwrap_or(first.log.first_change),
        });
    }
    let mut chosen: Vec<PlannedLog> = Vec::new();
    let mut thread_end = end_scn;
    let first_sequence = first.log.sequence;
    for (expected, c) in (first_sequence..).zip(needed) {
        if c.log.sequence != expected {
            return Err(PlanError::SequenceGap {
                thread,
                from: expected,
                to: c.log.sequence - 1,
            });
        }
        if c.log.first_change > end_scn {
            break;
        }
        // Logs wholly at or below from_scn only let the session start early.
        let counted = chosen
            .iter()
            .filter(|l| l.next_change.is_none_or(|n| n > from_scn + 1))
            .count();
        if counted == config.max_logs_per_thread.max(1) {
            // Window full: end where the last included log ends.
            if let Some(prev) = chosen.last().and_then(|l| l.next_change) {
                thread_end = thread_end.min(prev.saturating_sub(1));
            }
            break;
        }
        chosen.push(c.log.clone());
    }
    Ok((chosen, thread_end))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::port::{ArchiveDestStatus, ArchivedLog, OnlineLog, RedoThread};

    fn arch(seq: u64, first: Scn, next: Scn, dest: u32) -> ArchivedLog {
        ArchivedLog {
            name: Some(format!("/arch{dest}/1_{seq}_1.arc")),
            dest_id: dest,
            thread: 1,
            sequence: seq,
            first_change: first,
            next_change: next,
            status: "A".into(),
            archived: true,
            resetlogs_change: 1,
            ..Default::default()
        }
    }

    fn online(group: u32, seq: u64, first: Scn, next: Option<Scn>, status: &str) -> OnlineLog {
        OnlineLog {
            group,
            thread: 1,
            sequence: seq,
            bytes: 1 << 20,
            members: 1,
            status: status.into(),
            archived: status != "CURRENT",
            first_change: first,
            next_change: next,
            member_files: vec![format!("/redo/redo0{group}.log")],
            ..Default::default()
        }
    }

    fn inventory() -> LogInventory {
        LogInventory {
            resetlogs_change: 1,
            online: vec![
                online(1, 10, 1000, Some(2000), "INACTIVE"),
                online(2, 11, 2000, Some(3000), "ACTIVE"),
                online(3, 12, 3000, None, "CURRENT"),
            ],
            archived: vec![
                arch(8, 100, 500, 1),
                arch(9, 500, 1000, 1),
                arch(10, 1000, 2000, 1),
                arch(10, 1000, 2000, 2),
            ],
            destinations: vec![
                ArchiveDestStatus {
                    dest_id: 1,
                    dest_name: "LOG_ARCHIVE_DEST_1".into(),
                    status: "VALID".into(),
                    dest_type: "LOCAL".into(),
                    destination: None,
                },
                ArchiveDestStatus {
                    dest_id: 2,
                    dest_name: "LOG_ARCHIVE_DEST_2".into(),
                    status: "VALID".into(),
                    dest_type: "LOCAL".into(),
                    destination: None,
                },
            ],
            threads: vec![RedoThread {
                thread: 1,
                status: "OPEN".into(),
                enabled: "PUBLIC".into(),
                current_sequence: 12,
                last_redo_scn: 3500,
                ..RedoThread::default()
            }],
        }
    }

    fn names(p: &SessionPlan) -> Vec<String> {
        p.logs.iter().map(|l| l.name.clone()).collect()
    }

    #[test]
    fn archives_from_one_destination_then_unarchived_online_then_current() {
        let p = plan(&inventory(), 600, 3400, &PlannerConfig::default()).unwrap();
        assert_eq!(
            names(&p),
            [
                "/arch1/1_9_1.arc",
                "/arch1/1_10_1.arc",
                "/redo/redo02.log",
                "/redo/redo03.log"
            ]
        );
        assert_eq!((p.from_scn, p.end_scn), (600, 3400));
    }

    #[test]
    fn pinned_destination_is_used_and_unknown_one_is_an_error() {
        let cfg = PlannerConfig {
            archive_dest: Some("LOG_ARCHIVE_DEST_2".into()),
            ..Default::default()
        };
        let p = plan(&inventory(), 1500, 3400, &cfg).unwrap();
        assert_eq!(p.logs[0].name, "/arch2/1_10_1.arc");
        let cfg = PlannerConfig {
            archive_dest: Some("NOPE".into()),
            ..Default::default()
        };
        assert_eq!(
            plan(&inventory(), 1500, 3400, &cfg),
            Err(PlanError::UnknownArchiveDestination("NOPE".into()))
        );
    }

    #[test]
    fn logs_wholly_below_the_window_are_not_added() {
        let p = plan(&inventory(), 2500, 3400, &PlannerConfig::default()).unwrap();
        assert_eq!(names(&p), ["/redo/redo02.log", "/redo/redo03.log"]);
    }

    #[test]
    fn window_is_cut_at_the_end_of_the_last_log_that_fits() {
        let cfg = PlannerConfig {
            max_logs_per_thread: 2,
            ..Default::default()
        };
        let p = plan(&inventory(), 200, 3400, &cfg).unwrap();
        assert_eq!(names(&p), ["/arch1/1_8_1.arc", "/arch1/1_9_1.arc"]);
        assert_eq!(p.end_scn, 999);
    }

    #[test]
    fn deleted_archive_in_the_middle_is_a_gap_not_a_skip() {
        let mut inv = inventory();
        inv.archived.retain(|a| a.sequence != 9);
        let err = plan(&inv, 200, 3400, &PlannerConfig::default()).unwrap_err();
        assert_eq!(
            err,
            PlanError::SequenceGap {
                thread: 1,
                from: 9,
                to: 9
            }
        );
        assert!(matches!(
            err.to_source_error(),
            crate::engine::port::SourceError::ArchiveGap { .. }
        ));
    }

    #[test]
    fn issue10_start_scn_in_a_deleted_middle_archive_names_the_missing_sequence() {
        // RMAN deleted sequence 9; its V$ARCHIVED_LOG record remains.
        let mut inv = inventory();
        for a in &mut inv.archived {
            if a.sequence == 9 {
                a.deleted = true;
                a.status = "D".into();
            }
        }
        let gap = PlanError::SequenceGap {
            thread: 1,
            from: 9,
            to: 9,
        };
        assert_eq!(
            plan(&inv, 600, 3400, &PlannerConfig::default()),
            Err(gap.clone())
        );
        // The record reused too: the older log still shows which one is gone.
        inv.archived.retain(|a| a.sequence != 9);
        assert_eq!(plan(&inv, 600, 3400, &PlannerConfig::default()), Err(gap));
        // Only the inventory read from the start SCN on (no older log, no
        // record): nothing tells the sequence, the SCN is before every log.
        inv.archived.retain(|a| a.sequence != 8);
        assert!(matches!(
            plan(&inv, 600, 3400, &PlannerConfig::default()),
            Err(PlanError::StartScnNotCovered { scn: 601, .. })
        ));
    }

    #[test]
    fn start_scn_older_than_every_log_is_ora_01291() {
        let err = plan(&inventory(), 50, 3400, &PlannerConfig::default()).unwrap_err();
        assert!(matches!(
            err,
            PlanError::StartScnNotCovered {
                scn: 51,
                oldest: 100,
                ..
            }
        ));
        assert_eq!(err.to_source_error().ora_code(), Some(1291));
    }

    #[test]
    fn archives_of_an_older_incarnation_are_ignored() {
        let mut inv = inventory();
        for a in &mut inv.archived {
            if a.sequence == 9 {
                a.resetlogs_change = 0;
            }
        }
        assert_eq!(
            plan(&inv, 200, 3400, &PlannerConfig::default()),
            Err(PlanError::SequenceGap {
                thread: 1,
                from: 9,
                to: 9
            })
        );
    }

    #[test]
    fn no_plan_ever_asks_for_continuous_mine() {
        let p = plan(&inventory(), 600, 3400, &PlannerConfig::default()).unwrap();
        let req = p.request();
        assert!(!req.options.continuous_mine);
        assert!(!req.options.committed_data_only);
        assert_eq!(req.start_scn, 601);
    }

    #[test]
    fn same_files_mean_the_session_can_be_reused() {
        let a = plan(&inventory(), 3000, 3200, &PlannerConfig::default()).unwrap();
        let b = plan(&inventory(), 3200, 3400, &PlannerConfig::default()).unwrap();
        assert!(a.same_logs(&b));
        let c = plan(&inventory(), 600, 3400, &PlannerConfig::default()).unwrap();
        assert!(!a.same_logs(&c));
    }

    /// A second thread (RAC node 2) with its own logs.
    fn with_thread_two(mut inv: LogInventory, enable_change: Scn, last_redo: Scn) -> LogInventory {
        let mut o = online(7, 3, enable_change, None, "CURRENT");
        o.thread = 2;
        o.member_files = vec!["/redo/redo07.log".into()];
        inv.online.push(o);
        inv.threads.push(RedoThread {
            thread: 2,
            status: "OPEN".into(),
            enabled: "PUBLIC".into(),
            current_sequence: 3,
            last_redo_scn: last_redo,
            enable_change,
            ..RedoThread::default()
        });
        inv
    }

    #[test]
    fn issue8_window_end_capped_below_last_redo_change() {
        // One instance: LGWR has written up to SCN 3000; the rest of the redo
        // at 3000 and everything above it may still be in the log buffer.
        let mut inv = inventory();
        inv.threads[0].last_redo_scn = 3000;
        let p = plan(&inv, 2500, 3400, &PlannerConfig::default()).unwrap();
        assert_eq!(p.end_scn, 2999);
        // Nothing on disk above the start: an empty plan, never an inverted range.
        let p = plan(&inv, 2999, 3400, &PlannerConfig::default()).unwrap();
        assert!(p.is_empty());
        assert!(p.request().end_scn >= p.from_scn);
    }

    #[test]
    fn quiet_open_thread_holds_the_window_at_its_last_redo() {
        let inv = with_thread_two(inventory(), 10, 2600);
        let p = plan(&inv, 2500, 3400, &PlannerConfig::default()).unwrap();
        assert_eq!(p.end_scn, 2599);
        assert!(names(&p).contains(&"/redo/redo07.log".to_string()));
    }

    #[test]
    fn thread_enabled_after_the_window_start_needs_logs_only_from_its_enable_scn() {
        // Node 2 joined at SCN 3100: it has no log holding SCN 2501, and
        // that is no gap.
        let inv = with_thread_two(inventory(), 3100, 3450);
        let p = plan(&inv, 2500, 3400, &PlannerConfig::default()).unwrap();
        assert_eq!(p.end_scn, 3400);
        assert!(names(&p).contains(&"/redo/redo07.log".to_string()));
        // A window that ends before it was enabled does not read it at all.
        let p = plan(&inv, 2500, 3000, &PlannerConfig::default()).unwrap();
        assert!(!names(&p).contains(&"/redo/redo07.log".to_string()));
    }

    #[test]
    fn private_threads_are_neither_mined_nor_cap_the_window() {
        let mut inv = with_thread_two(inventory(), 10, 2600);
        inv.threads[1].enabled = "PRIVATE".into();
        let p = plan(&inv, 2500, 3400, &PlannerConfig::default()).unwrap();
        assert_eq!(p.end_scn, 3400);
        assert!(!names(&p).contains(&"/redo/redo07.log".to_string()));
    }

    #[test]
    fn closed_thread_is_checked_against_its_checkpoint_scn() {
        // Node 2 shut down cleanly at SCN 1200: all of its redo lies below a
        // window starting at 2500, so it neither caps nor needs logs.
        let mut inv = with_thread_two(inventory(), 10, 1200);
        inv.threads[1].status = "CLOSED".into();
        inv.threads[1].checkpoint_change = 1200;
        inv.online.retain(|o| o.thread != 2);
        let p = plan(&inv, 2500, 3400, &PlannerConfig::default()).unwrap();
        assert_eq!(p.end_scn, 3400);
        // A window starting before the close still needs its logs.
        assert_eq!(
            plan(&inv, 1000, 3400, &PlannerConfig::default()),
            Err(PlanError::NoCurrentLog(2))
        );
    }

    #[test]
    fn disabled_thread_is_read_from_its_archives_up_to_its_disable_scn() {
        let mut inv = inventory();
        let mut a = arch(5, 2000, 2800, 1);
        a.thread = 2;
        a.name = Some("/arch1/2_5_1.arc".into());
        inv.archived.push(a);
        inv.threads.push(RedoThread {
            thread: 2,
            status: "CLOSED".into(),
            enabled: "DISABLED".into(),
            current_sequence: 5,
            last_redo_scn: 2799,
            enable_change: 10,
            disable_change: 2800,
            checkpoint_change: 2800,
        });
        // Its last redo lies inside the window: its archive is read, and
        // having no CURRENT log is no error.
        let p = plan(&inv, 2500, 3400, &PlannerConfig::default()).unwrap();
        assert!(names(&p).contains(&"/arch1/2_5_1.arc".to_string()));
        assert_eq!(p.end_scn, 3400);
        // Disabled before the window: nothing of it is needed.
        let p = plan(&inv, 2900, 3400, &PlannerConfig::default()).unwrap();
        assert!(!names(&p).contains(&"/arch1/2_5_1.arc".to_string()));
    }
}
