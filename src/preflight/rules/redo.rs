//! Redo and archive rules: log sizes, switch rate, destinations, retention,
//! gaps, missing files, name format, recovery-area headroom.

use std::collections::{BTreeMap, BTreeSet};

use super::{gib, inst, inv, need};
use crate::preflight::defs::CheckDef;
use crate::preflight::facts::Facts;
use crate::preflight::model::{Outcome, Tally};
use crate::preflight::remedy;
use crate::preflight::smoke::SmokeFailure;
use crate::source::SourceError;

pub fn redo_size(f: &Facts, d: &CheckDef) -> Outcome {
    let inv = need!(f, inventory, "logs");
    if inv.online.is_empty() {
        return Outcome::skip("V$LOG returned no group");
    }
    let min = d.threshold("min_bytes", 524_288_000.0) as u64;
    let mut t = Tally::default();
    for l in &inv.online {
        let line = format!(
            "group {} thread {}: {} x{} {}",
            l.group,
            l.thread,
            gib(l.bytes),
            l.members,
            l.status
        );
        if l.bytes < min {
            t.warn(format!(
                "group {} is {} (below {})",
                l.group,
                gib(l.bytes),
                gib(min)
            ));
        }
        t.note(line);
    }
    t.finish(format!("every online log is at least {}", gib(min)))
        .fix(bigger_groups(&inv.online, min))
}

/// New groups of at least `min` (rounded up to whole GiB) for each thread,
/// as many as it has now, numbered after the highest group; then the small
/// ones dropped.
fn bigger_groups(online: &[crate::source::OnlineLog], min: u64) -> String {
    let gib_size = min.div_ceil(1 << 30).max(1);
    let mut next = online.iter().map(|l| l.group).max().unwrap_or(0);
    let mut threads: BTreeMap<u16, usize> = BTreeMap::new();
    for l in online {
        *threads.entry(l.thread).or_default() += 1;
    }
    let mut lines = Vec::new();
    for (thread, groups) in threads {
        for _ in 0..groups {
            next += 1;
            lines.push(format!(
                "ALTER DATABASE ADD LOGFILE THREAD {thread} GROUP {next} SIZE {gib_size}G;"
            ));
        }
    }
    lines.push("-- after ALTER SYSTEM SWITCH LOGFILE has moved CURRENT on and V$LOG shows them INACTIVE, drop the small groups:".into());
    for l in online.iter().filter(|l| l.bytes < min) {
        lines.push(format!("ALTER DATABASE DROP LOGFILE GROUP {};", l.group));
    }
    lines.join("\n")
}

pub fn switch_rate(f: &Facts, d: &CheckDef) -> Outcome {
    let i = need!(f, instance, "instance");
    let Some(h) = i.switch_history.as_ref() else {
        return Outcome::skip("V$LOG_HISTORY was not read");
    };
    let max = d.threshold("max_per_hour", 12.0) as u32;
    let ev = format!(
        "peak {} switches in one hour over {} hour(s) observed",
        h.peak_per_hour, h.hours_observed
    );
    if h.peak_per_hour > max {
        Outcome::warn(format!(
            "up to {} log switches an hour (more than {max}): the redo logs are too small for the load",
            h.peak_per_hour
        ))
        .with(ev)
    } else {
        Outcome::pass(format!("at most {} switches an hour", h.peak_per_hour)).with(ev)
    }
}

fn pinned_dest(f: &Facts) -> Option<&str> {
    f.config.as_ref().and_then(|c| {
        c.get(&[
            "log.mining.archive.destination.name",
            "archive.destination.name",
        ])
    })
}

pub fn arch_dest(f: &Facts, _d: &CheckDef) -> Outcome {
    let inv = need!(f, inventory, "logs");
    let mut t = Tally::default();
    let local: Vec<_> = inv
        .destinations
        .iter()
        .filter(|d| d.status == "VALID" && d.dest_type == "LOCAL")
        .collect();
    for d in &inv.destinations {
        t.note(format!(
            "{} (dest_id {}): {} {} {}",
            d.dest_name,
            d.dest_id,
            d.status,
            d.dest_type,
            d.destination.clone().unwrap_or_default()
        ));
    }
    let pinned = pinned_dest(f);
    if local.is_empty() {
        t.fail("no VALID LOCAL archive destination: archived logs cannot be read");
    }
    let mut copies: BTreeMap<(u16, u64), usize> = BTreeMap::new();
    for a in inv.archived.iter().filter(|a| a.is_available()) {
        *copies.entry((a.thread, a.sequence)).or_default() += 1;
    }
    let dup = copies.values().filter(|n| **n > 1).count();
    if pinned.is_none() && (local.len() > 1 || dup > 0) {
        t.warn(format!(
            "{} local destinations and {dup} sequence(s) archived more than once, and no destination is pinned: a reader may pick a copy that is later deleted (ORA-01291) or add both (ORA-01289)",
            local.len()
        ));
    }
    let zero = inv.archived.iter().filter(|a| a.dest_id == 0).count();
    if zero > 0 {
        t.warn(format!("{zero} archived log row(s) have DEST_ID 0"));
    }
    if let Some(p) = pinned {
        t.note(format!("the config pins `{p}`"));
    }
    t.finish(match local.first() {
        Some(d) if local.len() == 1 => format!("one local destination: {}", d.dest_name),
        _ => "the destination to read is pinned".to_string(),
    })
}

pub fn arch_retention(f: &Facts, d: &CheckDef) -> Outcome {
    let inv = need!(f, inventory, "logs");
    if inst(f).is_some_and(|i| i.log_mode != "ARCHIVELOG") {
        return Outcome::skip("the database does not archive (see archivelog-mode)");
    }
    let now = f.now();
    let purged = inv
        .archived
        .iter()
        .any(|a| a.deleted || a.status == "D" || a.name.is_none());
    let oldest = inv
        .archived
        .iter()
        .filter(|a| {
            a.is_available()
                && (inv.resetlogs_change == 0 || a.resetlogs_change == inv.resetlogs_change)
        })
        .filter_map(|a| a.first_time)
        .min();
    let Some(oldest) = oldest else {
        if inv.archived.is_empty() {
            return Outcome::pass(
                "nothing has been archived yet: every change since archiving began is still in the online logs",
            );
        }
        return Outcome::fail("no archived log of the current incarnation is available");
    };
    let hours = (now - oldest).num_minutes() as f64 / 60.0;
    if !purged {
        return Outcome::pass(format!(
            "no archived log has been deleted yet: history reaches back {hours:.1} h and nothing limits it so far"
        ))
        .with(format!("oldest available archived log starts {oldest}"));
    }
    let fail_h = d.threshold("fail_hours", 24.0);
    let warn_h = d.threshold("warn_hours", 72.0);
    let ev = format!("oldest available archived log starts {oldest} ({hours:.1} h before {now})");
    if hours < fail_h {
        Outcome::fail(format!(
            "archived logs reach back only {hours:.1} h (under {fail_h} h): an outage longer than that needs a new snapshot"
        ))
        .with(ev)
        .fix(retention_fix(hours, warn_h))
    } else if hours < warn_h {
        Outcome::warn(format!(
            "archived logs reach back {hours:.1} h (under {warn_h} h recommended)"
        ))
        .with(ev)
        .fix(retention_fix(hours, warn_h))
    } else {
        Outcome::pass(format!("archived logs reach back {hours:.0} h")).with(ev)
    }
}

/// How long archived logs are kept now against the retention the check
/// wants (`warn_hours`), in days, with the statements that set it.
fn retention_fix(kept_hours: f64, needed_hours: f64) -> String {
    // Under a day, days would round to 0.0 beside the hours the finding
    // states: hours alone, with the finding's precision.
    let kept = if kept_hours < 24.0 {
        format!("{kept_hours:.1} h")
    } else {
        format!("{:.1} day(s) ({kept_hours:.0} h)", kept_hours / 24.0)
    };
    let needed_days = (needed_hours / 24.0).ceil().max(1.0) as u64;
    let needed_hours = needed_hours.ceil().max(1.0) as u64;
    format!(
        "-- archived logs are kept {kept} now; keep at least {needed_days} day(s) ({needed_hours} h)\n\
         -- in RMAN (rman target /), or the RMAN job that deletes archived logs:\n\
         DELETE NOPROMPT ARCHIVELOG ALL COMPLETED BEFORE 'SYSDATE-{needed_days}';\n\
         -- on Amazon RDS:\n\
         exec rdsadmin.rdsadmin_util.set_configuration('archivelog retention hours', {needed_hours});"
    )
}

pub fn arch_gap(f: &Facts, _d: &CheckDef) -> Outcome {
    let inv = need!(f, inventory, "logs");
    let mut by_thread: BTreeMap<u16, BTreeSet<u64>> = BTreeMap::new();
    for a in inv.archived.iter().filter(|a| {
        a.is_available()
            && (inv.resetlogs_change == 0 || a.resetlogs_change == inv.resetlogs_change)
    }) {
        by_thread.entry(a.thread).or_default().insert(a.sequence);
    }
    for o in &inv.online {
        if let Some(set) = by_thread.get_mut(&o.thread) {
            set.insert(o.sequence);
        }
    }
    if by_thread.is_empty() {
        return Outcome::skip("no archived log is available to look for gaps");
    }
    let mut t = Tally::default();
    let mut restore = Vec::new();
    for (thread, seqs) in &by_thread {
        let v: Vec<u64> = seqs.iter().copied().collect();
        t.note(format!(
            "thread {thread}: sequences {}–{}",
            v.first().copied().unwrap_or(0),
            v.last().copied().unwrap_or(0)
        ));
        for w in v.windows(2) {
            if w[1] > w[0] + 1 {
                let (from, to) = (w[0] + 1, w[1] - 1);
                let which = if from == to {
                    format!("sequence {from}")
                } else {
                    format!("sequences {from}–{to}")
                };
                t.fail(format!("thread {thread}: {which} missing"));
                restore.push(format!(
                    "RESTORE ARCHIVELOG SEQUENCE BETWEEN {from} AND {to} THREAD {thread};"
                ));
            }
        }
    }
    let outcome = t.finish("no gap in the archived sequences");
    if restore.is_empty() {
        return outcome;
    }
    outcome.fix(format!(
        "-- in RMAN (rman target /), restore the missing logs from backup:\n{}\n\
         -- if they cannot be restored, their changes are lost to capture: snapshot again \
         (cdcctl run --snapshot when-needed)",
        restore.join("\n")
    ))
}

pub fn arch_files_present(f: &Facts, _d: &CheckDef) -> Outcome {
    let inv = need!(f, inventory, "logs");
    let gone: Vec<String> = inv
        .archived
        .iter()
        .filter(|a| a.status != "A" || a.deleted || a.name.is_none())
        .map(|a| {
            format!(
                "thread {} sequence {} dest {}: status {}{}",
                a.thread,
                a.sequence,
                a.dest_id,
                a.status,
                if a.deleted { ", deleted" } else { "" }
            )
        })
        .collect();
    if gone.is_empty() {
        Outcome::pass(format!(
            "all {} archived log rows are available",
            inv.archived.len()
        ))
    } else {
        Outcome::warn(format!(
            "{} archived log(s) are recorded but deleted, expired or unavailable",
            gone.len()
        ))
        .with_all(gone.into_iter().take(10))
    }
}

pub fn arch_format(f: &Facts, _d: &CheckDef) -> Outcome {
    let i = need!(f, instance, "instance");
    if i.recovery_area.is_some()
        || i.parameter("db_recovery_file_dest")
            .is_some_and(|v| !v.is_empty())
    {
        return Outcome::pass("archived logs go to the recovery area (OMF names)");
    }
    let Some(fmt) = i.parameter("log_archive_format") else {
        return Outcome::skip("log_archive_format was not read");
    };
    let lower = fmt.to_ascii_lowercase();
    let missing: Vec<&str> = ["%t", "%s", "%r"]
        .into_iter()
        .filter(|p| !lower.contains(p))
        .collect();
    let ev = format!("log_archive_format = {fmt}");
    if missing.is_empty() {
        Outcome::pass("the format has %t, %s and %r").with(ev)
    } else {
        Outcome::warn(format!(
            "log_archive_format lacks {}: names can collide after RESETLOGS",
            missing.join(", ")
        ))
        .with(ev)
    }
}

pub fn fra_usage(f: &Facts, d: &CheckDef) -> Outcome {
    let i = need!(f, instance, "instance");
    let mut t = Tally::default();
    for dest in &i.failed_archive_dests {
        t.fail(format!(
            "archive destination {dest} is FULL or in ERROR: the archiver is stuck (ORA-00257)"
        ));
    }
    let Some(ra) = i.recovery_area.as_ref() else {
        return t.finish("no recovery area is configured");
    };
    if ra.space_limit == 0 {
        return t.finish("the recovery area has no limit");
    }
    let used =
        ra.space_used.saturating_sub(ra.space_reclaimable) as f64 / ra.space_limit as f64 * 100.0;
    let warn = d.threshold("warn_pct", 85.0);
    let fail = d.threshold("fail_pct", 95.0);
    t.note(format!(
        "{}: {} of {} used, {} reclaimable ({used:.1}% not reclaimable)",
        ra.name,
        gib(ra.space_used),
        gib(ra.space_limit),
        gib(ra.space_reclaimable)
    ));
    if used >= fail {
        // The archiver stops only when the area is full; a lowered
        // threshold is the site's own margin and is named as such.
        let consequence = if used >= 95.0 {
            "the archiver is about to stop (ORA-19809, ORA-00257)".to_string()
        } else {
            format!("at or above the failure threshold of {fail}%; the archiver stops when it is full (ORA-19809, ORA-00257)")
        };
        t.fail(format!(
            "the recovery area is {used:.1}% full: {consequence}"
        ));
    } else if used >= warn {
        t.warn(format!(
            "the recovery area is {used:.1}% full (warning at {warn}%)"
        ));
    }
    if let Some(p) = ra.archived_log_reclaimable_pct {
        if p > 0.0 {
            t.warn(format!(
                "{p:.1}% of the recovery area is reclaimable archived logs: Oracle may delete them before cdcctl reads them"
            ));
        }
    }
    // A size at which what cannot be reclaimed sits below the warning level.
    let kept = ra.space_used.saturating_sub(ra.space_reclaimable) as f64;
    let needed_gib = (kept / (warn.max(1.0) / 100.0) / (1u64 << 30) as f64).ceil() as u64 + 1;
    let limit_gib = ra.space_limit.div_ceil(1 << 30);
    t.finish(format!("the recovery area is {used:.1}% used"))
        .fix(format!(
            "ALTER SYSTEM SET db_recovery_file_dest_size = {}G SCOPE=BOTH;  -- now {limit_gib}G\n\
             -- and back up / delete archived logs that cdcctl has read",
            needed_gib.max(limit_gib + 1)
        ))
}

/// The remediation for the error a smoke mine met, by what it means:
/// a log missing, a privilege missing, the wrong container. `None` keeps
/// the catalog's text for an error without a known fix.
fn smoke_fix(f: &Facts, failure: &SmokeFailure) -> Option<String> {
    let e = &failure.error;
    let major = inst(f).and_then(|i| i.major_version()).unwrap_or(19);
    if let SourceError::ArchiveGap {
        thread,
        missing_from,
        missing_to,
    } = e
    {
        return Some(format!(
            "-- archived logs of thread {thread} are missing: in RMAN (rman target /), restore them from backup\n\
             RESTORE ARCHIVELOG SEQUENCE BETWEEN {missing_from} AND {missing_to} THREAD {thread};"
        ));
    }
    let code = e.ora_code()?;
    let fix = match code {
        // Missing logfile / cannot open / file not found.
        1291 | 1284 | 1289 | 1290 => {
            let mut lines = vec![format!(
                "-- ORA-{code:05}: a log LogMiner was given is missing or unreadable; check the files exist and the database's OS user can read them"
            )];
            if failure.logs.is_empty() {
                lines.push(
                    "SELECT thread#, sequence#, name, status, deleted FROM v$archived_log WHERE first_time > sysdate - 1 ORDER BY thread#, sequence#;"
                        .into(),
                );
            }
            for l in &failure.logs {
                lines.push(format!("-- {} (thread {} sequence {})", l.name, l.thread, l.sequence));
            }
            let archived: Vec<_> = failure
                .logs
                .iter()
                .filter(|l| {
                    inv(f).is_some_and(|i| {
                        i.archived
                            .iter()
                            .any(|a| a.name.as_deref() == Some(l.name.as_str()))
                    })
                })
                .collect();
            if !archived.is_empty() {
                lines.push("-- in RMAN (rman target /), restore the archived ones from backup:".into());
                for l in archived {
                    lines.push(format!(
                        "RESTORE ARCHIVELOG SEQUENCE {} THREAD {};",
                        l.sequence, l.thread
                    ));
                }
            }
            lines.join("\n")
        }
        // Insufficient privileges; user (or LogMiner's access to it) missing.
        1031 | 1435 | 942 | 6550 => {
            let grants = if major >= 12 {
                "GRANT LOGMINING TO c##dbzuser CONTAINER=ALL;\n\
                 GRANT EXECUTE ON SYS.DBMS_LOGMNR TO c##dbzuser CONTAINER=ALL;\n\
                 GRANT SELECT ON SYS.V_$LOGMNR_CONTENTS TO c##dbzuser CONTAINER=ALL;\n\
                 GRANT SELECT ANY TRANSACTION TO c##dbzuser CONTAINER=ALL;"
            } else {
                "GRANT EXECUTE_CATALOG_ROLE TO c##dbzuser;\n\
                 GRANT EXECUTE ON SYS.DBMS_LOGMNR TO c##dbzuser;\n\
                 GRANT SELECT ON SYS.V_$LOGMNR_CONTENTS TO c##dbzuser;\n\
                 GRANT SELECT ANY TRANSACTION TO c##dbzuser;"
            };
            format!("-- ORA-{code:05}: the capture user may not mine; as a DBA:\n{grants}")
        }
        // Mining from inside a PDB before 21c.
        65040 => {
            let s = f.session.as_ref()?;
            if s.common_user {
                format!(
                    "-- ORA-65040: LogMiner runs in CDB$ROOT before 21c: connect {} to the CDB root service, not the PDB's ({})",
                    remedy::sql_ident(&s.user),
                    s.con_name
                )
            } else {
                super::multitenant::create_common_user(f, s)
            }
        }
        // CONTINUOUS_MINE asked of 19c or later.
        44609 => "-- ORA-44609: CONTINUOUS_MINE is desupported from 19c: remove it from the connector's mining options (Debezium log.mining.continuous.mine=false)".into(),
        _ => return None,
    };
    Some(fix)
}

pub fn smoke_mine(f: &Facts, _d: &CheckDef) -> Outcome {
    let r = match &f.smoke {
        None => {
            return Outcome::skip(
                "needs a live source (sim or oracle://): an evidence or facts file cannot mine",
            )
        }
        Some(Err(failure)) => {
            let e = &failure.error;
            let mut o = Outcome::fail(format!("LogMiner failed: {e}"));
            if !failure.logs.is_empty() {
                let names: Vec<&str> = failure.logs.iter().map(|l| l.name.as_str()).collect();
                o = o.with(format!("mining {}", names.join(", ")));
            }
            // The generic advice says what to run elsewhere ("run cdcctl
            // preflight"): circular here, where the fix names the statements.
            return match smoke_fix(f, failure) {
                Some(fix) => o.fix(fix),
                None => match e.advice() {
                    Some(a) => o.with(format!("advice: {a}")),
                    None => o,
                },
            };
        }
        Some(Ok(r)) => r,
    };
    let mut t = Tally::default();
    t.note(format!("mined {} row(s) of {}", r.rows, r.log));
    if r.unknown_objects > 0 {
        t.warn(format!(
            "{} row(s) name OBJ# n: LogMiner's dictionary does not know those objects (dropped or changed after the dictionary was read)",
            r.unknown_objects
        ));
    }
    if r.unsupported > 0 {
        t.warn(format!(
            "{} UNSUPPORTED row(s) (OPERATION_CODE 255)",
            r.unsupported
        ));
    }
    if r.unreconstructable > 0 {
        t.warn(format!(
            "{} row(s) with STATUS 2 (statement not rebuilt)",
            r.unreconstructable
        ));
    }
    if r.dictionary_mismatch > 0 {
        t.warn(format!(
            "{} row(s) report a dictionary mismatch",
            r.dictionary_mismatch
        ));
    }
    for e in &r.examples {
        t.note(e.clone());
    }
    t.finish(format!(
        "LogMiner decoded {} row(s) of the newest log",
        r.rows
    ))
}
