//! The smoke mine: one short LogMiner session over the newest log, read for
//! the in-scope owners, so that privileges, the container, missing logs and
//! undecodable rows show up before capture starts rather than after.

use crate::engine::row::{LogMinerRow, OperationCode};
use crate::engine::session::{choose_destination, plan, PlannerConfig};
use crate::source::{
    ContentsQuery, LogInventory, MiningOptions, RedoSource, SessionRequest, SourceError,
};

/// What one smoke session saw.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SmokeResult {
    /// The log files mined (one per thread with redo in the window), as
    /// one line for the evidence.
    pub log: String,
    /// The same files with their thread and sequence.
    pub logs: Vec<MinedLog>,
    pub rows: usize,
    /// Rows naming `OBJ# n`: LogMiner's dictionary does not know the object.
    pub unknown_objects: usize,
    /// `OPERATION_CODE = 255`.
    pub unsupported: usize,
    /// `STATUS = 2`: the statement could not be rebuilt.
    pub unreconstructable: usize,
    /// `INFO` mentions a dictionary mismatch.
    pub dictionary_mismatch: usize,
    /// The first of each kind, for the evidence.
    pub examples: Vec<String>,
}

/// A smoke mine that failed: the error, and the logs it was mining (empty
/// when it failed before choosing them), so the remediation can name them.
#[derive(Debug, Clone, PartialEq)]
pub struct SmokeFailure {
    pub error: SourceError,
    pub logs: Vec<MinedLog>,
}

impl std::fmt::Display for SmokeFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

/// One log file of the smoke session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MinedLog {
    pub name: String,
    pub thread: u16,
    pub sequence: u64,
}

/// Runs the session. `owners` limits the rows read; `pdb` filters
/// `SRC_CON_NAME` when mining a PDB from CDB$ROOT. The window is the
/// newest archived log's SCNs (else the CURRENT online log's up to now),
/// and the logs are planned as capture plans them: from the destination
/// capture would read (`planner`), so a Data Guard primary's rows for its
/// standby, which name a service, are never mined, and from every thread
/// with redo in the window, since LogMiner on RAC needs them all
/// (ORA-01291 otherwise).
pub fn smoke_mine(
    redo: &mut dyn RedoSource,
    inventory: &LogInventory,
    planner: &PlannerConfig,
    owners: &[String],
    pdb: Option<String>,
    max_rows: usize,
) -> Result<SmokeResult, SmokeFailure> {
    let mut logs = Vec::new();
    mine(redo, inventory, planner, owners, pdb, max_rows, &mut logs)
        .map_err(|error| SmokeFailure { error, logs })
}

fn mine(
    redo: &mut dyn RedoSource,
    inventory: &LogInventory,
    planner: &PlannerConfig,
    owners: &[String],
    pdb: Option<String>,
    max_rows: usize,
    logs: &mut Vec<MinedLog>,
) -> Result<SmokeResult, SourceError> {
    let dest_id = choose_destination(inventory, planner).map_err(|e| e.to_source_error())?;
    let newest_archived = inventory
        .archived
        .iter()
        .filter(|a| {
            a.is_available()
                && Some(a.dest_id) == dest_id
                && a.resetlogs_change == inventory.resetlogs_change
        })
        .max_by_key(|a| (a.next_change, a.thread));
    // Rows with SCN above `from` up to `to`, inclusive.
    let (from, to) = match newest_archived {
        // NEXT_CHANGE# is the first SCN of the next log.
        Some(a) => (
            a.first_change.saturating_sub(1),
            a.next_change.saturating_sub(1).max(a.first_change),
        ),
        None => {
            let current = inventory
                .online
                .iter()
                .filter(|l| l.status == "CURRENT")
                .min_by_key(|l| l.first_change)
                .ok_or_else(|| {
                    SourceError::NotFound("no archived or current online log to mine".into())
                })?;
            let now = redo.current_scn()?.scn;
            (current.first_change.saturating_sub(1), now)
        }
    };
    let plan = plan(inventory, from, to, planner).map_err(|e| e.to_source_error())?;
    let (files, start, end) = if plan.logs.is_empty() {
        // No redo flushed in the window yet (an idle instance): the
        // CURRENT log of each thread still shows whether mining works.
        let mut current: Vec<_> = inventory
            .online
            .iter()
            .filter(|l| l.status == "CURRENT")
            .collect();
        current.sort_by_key(|l| l.thread);
        let files = current
            .iter()
            .map(|l| {
                let name = l.member_files.first().cloned().ok_or_else(|| {
                    SourceError::NotFound(format!(
                        "online log group {} has no member file",
                        l.group
                    ))
                })?;
                logs.push(MinedLog {
                    name: name.clone(),
                    thread: l.thread,
                    sequence: l.sequence,
                });
                Ok(name)
            })
            .collect::<Result<Vec<_>, SourceError>>()?;
        if files.is_empty() {
            return Err(SourceError::NotFound(format!(
                "no log holds SCN {} to {to}",
                from + 1
            )));
        }
        (files, from + 1, to)
    } else {
        logs.extend(plan.logs.iter().map(|l| MinedLog {
            name: l.name.clone(),
            thread: l.thread,
            sequence: l.sequence,
        }));
        let files = plan.logs.iter().map(|l| l.name.clone()).collect();
        // Redo past what the instances flushed shortens the window; an
        // empty one still opens the logs, which is what the test is for.
        (
            files,
            plan.session_start,
            plan.end_scn.max(plan.from_scn + 1),
        )
    };
    let request = SessionRequest {
        log_files: files.clone(),
        start_scn: start,
        end_scn: end,
        options: MiningOptions {
            dict_from_online_catalog: true,
            ..Default::default()
        },
    };
    redo.start_session(&request)?;
    let outcome = read(
        redo,
        &files.join(", "),
        start - 1,
        end,
        owners,
        pdb,
        max_rows,
    );
    // The session is ended whatever the read returned; a failure to end is
    // reported only when the read itself succeeded.
    let ended = redo.end_session();
    let mut result = outcome?;
    ended?;
    result.logs = logs.clone();
    Ok(result)
}

fn read(
    redo: &mut dyn RedoSource,
    file: &str,
    from: u64,
    to: u64,
    owners: &[String],
    pdb: Option<String>,
    max_rows: usize,
) -> Result<SmokeResult, SourceError> {
    redo.query_contents(&ContentsQuery {
        from_scn: from,
        to_scn: to,
        owners: owners.to_vec(),
        pdb,
    })?;
    let mut r = SmokeResult {
        log: file.to_string(),
        ..Default::default()
    };
    let mut batch: Vec<LogMinerRow> = Vec::new();
    while r.rows < max_rows {
        batch.clear();
        let n = redo.fetch(1000.min(max_rows - r.rows), &mut batch)?;
        if n == 0 {
            break;
        }
        for row in &batch {
            tally(&mut r, row);
        }
    }
    Ok(r)
}

fn tally(r: &mut SmokeResult, row: &LogMinerRow) {
    r.rows += 1;
    let table = row.table_name.as_deref().unwrap_or("");
    let note = |r: &mut SmokeResult, what: &str| {
        if r.examples.len() < 5 {
            r.examples
                .push(format!("SCN {} {}: {what}", row.scn, row.xid));
        }
    };
    if table.starts_with("OBJ# ") {
        r.unknown_objects += 1;
        note(r, &format!("table {table}"));
    }
    if row.operation_code == OperationCode::Unsupported {
        r.unsupported += 1;
        note(r, &format!("UNSUPPORTED on {table}"));
    }
    if row.status == 2 {
        r.unreconstructable += 1;
        note(
            r,
            &format!("STATUS 2 ({})", row.info.clone().unwrap_or_default()),
        );
    }
    if row
        .info
        .as_deref()
        .is_some_and(|i| i.to_ascii_lowercase().contains("dictionary mismatch"))
    {
        r.dictionary_mismatch += 1;
        note(r, "Dictionary Mismatch");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::sim::Sim;
    use crate::source::Catalog;

    fn smoke(scenario: &str) -> Result<SmokeResult, SmokeFailure> {
        let mut sim = Sim::from_spec(scenario).unwrap();
        let inventory = Catalog::log_inventory(&mut sim).unwrap();
        smoke_mine(
            &mut sim,
            &inventory,
            &PlannerConfig::default(),
            &["APP".to_string()],
            None,
            20_000,
        )
    }

    #[test]
    fn on_rac_the_smoke_mine_reads_a_log_of_every_thread() {
        let r = smoke("rac").expect("the smoke mine of a cluster succeeds");
        let threads: std::collections::BTreeSet<u16> = r.logs.iter().map(|l| l.thread).collect();
        assert_eq!(threads, [1, 2].into_iter().collect(), "{:?}", r.logs);
        assert!(r.rows > 0);
        for l in &r.logs {
            assert!(r.log.contains(&l.name), "{} names {}", r.log, l.name);
        }
    }

    #[test]
    fn on_rac_one_thread_alone_is_refused_as_a_missing_log() {
        // Why every thread is read: LogMiner wants the redo of all of them.
        let r = smoke("rac").unwrap();
        let first = r.logs.iter().find(|l| l.thread == 1).unwrap();
        let mut sim = Sim::from_spec("rac").unwrap();
        let inventory = Catalog::log_inventory(&mut sim).unwrap();
        let a = inventory
            .archived
            .iter()
            .find(|a| a.name.as_deref() == Some(first.name.as_str()))
            .expect("thread 1's newest archived log");
        let e = sim
            .start_session(&SessionRequest {
                log_files: vec![first.name.clone()],
                start_scn: a.first_change,
                end_scn: a.next_change - 1,
                options: MiningOptions {
                    dict_from_online_catalog: true,
                    ..Default::default()
                },
            })
            .unwrap_err();
        assert_eq!(e.ora_code(), Some(1291), "{e}");
        assert!(e.to_string().contains("thread 2"), "{e}");
    }

    #[test]
    fn a_single_instance_mines_one_log() {
        let r = smoke("demo").unwrap();
        assert_eq!(r.logs.len(), 1, "{:?}", r.logs);
        assert!(r.rows > 0);
    }

    #[test]
    fn a_failed_smoke_mine_keeps_the_logs_it_was_mining() {
        let e = smoke("missing-grants").unwrap_err();
        assert_eq!(e.error.ora_code(), Some(1031), "{e}");
        assert!(!e.logs.is_empty());
    }
}
