//! Dameng DM8 rules: archiving, archive destinations, RLOG_APPEND_LOGIC,
//! the DBMS_LOGMNR package, archived-log-only mining, topology and DDL.

use super::need;
use crate::preflight::defs::CheckDef;
use crate::preflight::facts::Facts;
use crate::preflight::model::{Outcome, Tally};
use crate::preflight::rules::tables::recent_ddl;
use crate::source::DmFacts;

fn dm(f: &Facts) -> Result<&DmFacts, Outcome> {
    match f.instance.as_ref() {
        None => Err(Outcome::skip(f.missing_reason("instance"))),
        Some(i) => i.dm.as_ref().ok_or_else(|| {
            Outcome::skip("the source provides no DM8 facts (V$DM_INI, V$DM_ARCH_INI)")
        }),
    }
}

macro_rules! need_dm {
    ($f:expr) => {
        match dm($f) {
            Ok(d) => d,
            Err(o) => return o,
        }
    };
}

pub fn arch(f: &Facts, _d: &CheckDef) -> Outcome {
    let i = need!(f, instance, "instance");
    let d = need_dm!(f);
    let ini = d.arch_ini.clone().unwrap_or_else(|| "unset".into());
    let ev = format!("ARCH_MODE -> {}, ARCH_INI = {ini}", i.log_mode);
    if i.log_mode == "ARCHIVELOG" && ini == "1" {
        Outcome::pass("archiving is on").with(ev)
    } else {
        Outcome::fail("archiving is off: DBMS_LOGMNR has no archived log to mine").with(ev)
    }
}

pub fn arch_dest(f: &Facts, def: &CheckDef) -> Outcome {
    let d = need_dm!(f);
    let min_mb = def.threshold("min_space_mb", 10240.0) as u64;
    let mut t = Tally::default();
    let local: Vec<_> = d
        .arch_destinations
        .iter()
        .filter(|a| a.arch_type == "LOCAL" && a.arch_is_valid)
        .collect();
    for a in &d.arch_destinations {
        t.note(format!(
            "{} {} {} limit {} MB{}",
            a.arch_name,
            a.arch_type,
            a.arch_dest,
            a.arch_space_limit,
            if a.arch_is_valid { "" } else { " (invalid)" }
        ));
    }
    if local.is_empty() {
        t.fail("no valid LOCAL archive destination in V$DM_ARCH_INI");
    }
    for a in &local {
        if a.arch_space_limit == 0 {
            t.warn(format!(
                "{}: ARCH_SPACE_LIMIT is 0 (unbounded): archives can fill the disk",
                a.arch_name
            ));
        } else if a.arch_space_limit < min_mb {
            t.warn(format!(
                "{}: ARCH_SPACE_LIMIT {} MB is below {min_mb} MB: archives may be recycled before they are mined",
                a.arch_name, a.arch_space_limit
            ));
        }
    }
    t.finish("a valid local archive destination with a space limit")
}

pub fn logic_log(f: &Facts, _d: &CheckDef) -> Outcome {
    let d = need_dm!(f);
    let v = d.rlog_append_logic.as_deref().unwrap_or("unset");
    let ev = format!("RLOG_APPEND_LOGIC = {v}");
    match v.trim() {
        "2" => Outcome::pass("full before images are logged").with(ev),
        "1" => Outcome::warn("RLOG_APPEND_LOGIC = 1: tables with a primary key log only the key in UPDATE/DELETE before images").with(ev),
        "3" => Outcome::warn("RLOG_APPEND_LOGIC = 3: changed columns plus ROWID only").with(ev),
        "4" => Outcome::warn("RLOG_APPEND_LOGIC = 4: undocumented meaning; use 2").with(ev),
        _ => Outcome::fail("logical logging is off: V$LOGMNR_CONTENTS comes back empty").with(ev),
    }
}

pub fn pkg(f: &Facts, _d: &CheckDef) -> Outcome {
    let d = need_dm!(f);
    match d.logmnr_package_installed {
        Some(true) => Outcome::pass("DBMS_LOGMNR is installed"),
        Some(false) => Outcome::fail("DBMS_LOGMNR is not installed"),
        None => Outcome::skip("SF_CHECK_SYSTEM_PACKAGE('DBMS_LOGMNR') was not read"),
    }
}

pub fn archive_only(f: &Facts, _d: &CheckDef) -> Outcome {
    let inv = need!(f, inventory, "logs");
    let available = inv.archived.iter().filter(|a| a.is_available()).count();
    if available == 0 {
        Outcome::fail(
            "V$ARCHIVED_LOG lists no file: DM8 mines archived logs only, there is nothing to read",
        )
    } else {
        Outcome::pass(format!(
            "{available} archived log(s); DM8 mines archived logs only, so latency follows the archive switch rate"
        ))
    }
}

pub fn topology_ddl(f: &Facts, def: &CheckDef) -> Outcome {
    let d = need_dm!(f);
    let mut t = Tally::default();
    if d.mpp == Some(true) {
        t.fail("MPP deployment: DBMS_LOGMNR does not support MPP");
    }
    let hours = def.threshold("recent_hours", 24.0);
    for r in recent_ddl(f, hours) {
        t.warn(format!("{r} (the DM8 dictionary is online only: statements on changed or dropped tables cannot be rebuilt)"));
    }
    t.finish("single-node deployment and no recent DDL")
}
