//! The smoke mine: one short LogMiner session over the newest log, read for
//! the in-scope owners, so that privileges, the container, missing logs and
//! undecodable rows show up before capture starts rather than after.

use crate::engine::row::{LogMinerRow, OperationCode};
use crate::engine::session::{choose_destination, PlannerConfig};
use crate::source::{
    ContentsQuery, LogInventory, MiningOptions, RedoSource, SessionRequest, SourceError,
};

/// What one smoke session saw.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SmokeResult {
    /// The log file mined.
    pub log: String,
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

/// Runs the session. `owners` limits the rows read; `pdb` filters
/// `SRC_CON_NAME` when mining a PDB from CDB$ROOT. The archive comes from
/// the destination capture would read (`planner`), so a Data Guard
/// primary's rows for its standby, which name a service, are never mined.
pub fn smoke_mine(
    redo: &mut dyn RedoSource,
    inventory: &LogInventory,
    planner: &PlannerConfig,
    owners: &[String],
    pdb: Option<String>,
    max_rows: usize,
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
    let (file, from, to) = match newest_archived {
        // NEXT_CHANGE# is the first SCN of the next log; ENDSCN is inclusive.
        Some(a) => (
            a.name.clone().unwrap_or_default(),
            a.first_change,
            a.next_change.saturating_sub(1).max(a.first_change),
        ),
        None => {
            let current = inventory
                .online
                .iter()
                .find(|l| l.status == "CURRENT")
                .ok_or_else(|| {
                    SourceError::NotFound("no archived or current online log to mine".into())
                })?;
            let file = current.member_files.first().cloned().ok_or_else(|| {
                SourceError::NotFound(format!(
                    "online log group {} has no member file",
                    current.group
                ))
            })?;
            let now = redo.current_scn()?.scn;
            (file, current.first_change, now)
        }
    };
    let request = SessionRequest {
        log_files: vec![file.clone()],
        start_scn: from,
        end_scn: to,
        options: MiningOptions {
            dict_from_online_catalog: true,
            ..Default::default()
        },
    };
    redo.start_session(&request)?;
    let outcome = read(redo, &file, from, to, owners, pdb, max_rows);
    // The session is ended whatever the read returned; a failure to end is
    // reported only when the read itself succeeded.
    let ended = redo.end_session();
    let result = outcome?;
    ended?;
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
        from_scn: from.saturating_sub(1),
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
