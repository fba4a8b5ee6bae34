//! Dameng DM8 rules: archiving, archive destinations, RLOG_APPEND_LOGIC,
//! the DBMS_LOGMNR package, archived-log-only mining, topology and DDL,
//! and the flashback the initial snapshot reads with.

use super::need;
use crate::preflight::defs::CheckDef;
use crate::preflight::facts::Facts;
use crate::preflight::model::{Outcome, Tally};
use crate::preflight::remedy;
use crate::preflight::rules::tables::recent_ddl;
use crate::source::{DmFacts, TableFacts, TableName};

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

/// `ENABLE_FLASHBACK` and `UNDO_RETENTION`, which the snapshot's
/// `AS OF SCN` reads need.
pub fn flashback(f: &Facts, d: &CheckDef) -> Outcome {
    let i = need!(f, instance, "instance");
    let Some(on) = i.parameter("enable_flashback").map(str::trim) else {
        return Outcome::skip("ENABLE_FLASHBACK was not read (SELECT on V$DM_INI)");
    };
    let retention = i
        .parameter("undo_retention")
        .and_then(|v| v.trim().parse::<f64>().ok());
    let ev = format!(
        "ENABLE_FLASHBACK = {on}, UNDO_RETENTION = {}",
        retention.map_or_else(|| "unknown".to_string(), |r| format!("{r} s"))
    );
    if on != "1" {
        return Outcome::fail(
            "flashback is off: DM8 keeps no earlier row versions, so `cdcctl run` refuses its \
             initial snapshot (each chunk is a flashback read AS OF SCN); `--snapshot never` \
             streams without one",
        )
        .with(ev);
    }
    let min = d.threshold("min_retention_s", 60.0);
    match retention {
        Some(r) if r < min => Outcome::warn(format!(
            "UNDO_RETENTION = {r} s, below {min} s: a snapshot chunk read longer than that meets \
             [-9801] (flashback version expired) and is read again with fewer rows"
        ))
        .with(ev),
        _ => Outcome::pass("flashback is on: each snapshot chunk is read AS OF SCN the newest LSN")
            .with(ev),
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
            "{available} archived log(s); DM8 mines archive files only, the one being written \
             included, so latency follows the archive flush, not the log switch"
        ))
    }
}

pub fn topology_ddl(f: &Facts, def: &CheckDef) -> Outcome {
    let d = need_dm!(f);
    let mut t = Tally::default();
    if d.mpp == Some(true) {
        t.fail("MPP deployment: DBMS_LOGMNR does not support MPP");
    }
    match d.dsc_nodes {
        Some(0) => {}
        Some(n) => t.fail(format!(
            "DMDSC cluster of {n} node(s) (V$DSC_EP_INFO): each node archives its own redo and \
             V$TRX lists one node's transactions; cdcctl does not merge them yet"
        )),
        None => t.note("V$DSC_EP_INFO was not read: whether this is a DMDSC cluster is unknown"),
    }
    let hours = def.threshold("recent_hours", 24.0);
    for r in recent_ddl(f, hours) {
        t.warn(format!("{r} (the DM8 dictionary is online only: statements on changed or dropped tables cannot be rebuilt)"));
    }
    t.finish("single-node deployment and no recent DDL")
}

/// What mining reads, with the grant each needs; `DBMS_LOGMNR` stands for
/// the package (its absence or a missing EXECUTE).
const MINING_OBJECTS: [&str; 6] = [
    "V$LOGMNR_CONTENTS",
    "V$ARCH_FILE",
    "V$RLOG",
    "V$DM_INI",
    // DM8 writes no end row for a rollback: the open-transaction listing
    // is what ends a rolled-back transaction and frees the restart point.
    "V$TRX",
    "DBMS_LOGMNR",
];

pub fn grants(f: &Facts, _d: &CheckDef) -> Outcome {
    let s = need!(f, session, "session");
    // A package that is not installed is dm-pkg's finding, not a grant.
    let uninstalled = dm(f).is_ok_and(|d| d.logmnr_package_installed == Some(false));
    let mut t = Tally::default();
    for object in MINING_OBJECTS {
        if object == "DBMS_LOGMNR" && uninstalled {
            continue;
        }
        if let Some(code) = s.inaccessible_objects.get(object) {
            t.fail(format!("{object} cannot be used (error {code})"));
        }
    }
    t.note(
        "EXECUTE ON DBMS_LOGMNR reads every change of every table, whatever the table grants: \
         treat the connector user as able to read the whole database",
    );
    t.finish(format!(
        "{} can read what mining needs",
        if s.user.is_empty() {
            "the user"
        } else {
            &s.user
        }
    ))
}

fn has_key(t: &TableFacts) -> bool {
    t.constraints
        .iter()
        .any(|c| c.enabled && (c.constraint_type == "P" || c.constraint_type == "U"))
}

pub fn tbl_key(f: &Facts, _d: &CheckDef) -> Outcome {
    let tables = need!(f, tables, "tables");
    if tables.is_empty() {
        return Outcome::skip("no table in scope");
    }
    let mut t = Tally::default();
    let keyless: Vec<&TableName> = tables
        .iter()
        .filter(|tab| !has_key(tab))
        .map(|tab| &tab.name)
        .collect();
    for name in &keyless {
        t.warn(format!(
            "{name}: no primary or unique key: events carry no key for Kafka message keys, \
             Flink upserts or snapshot chunks"
        ));
    }
    t.finish(format!("{} table(s) have a key", tables.len()))
        .fix(remedy::per_table(KEY_FIX, keyless))
}

const KEY_FIX: &str = "ALTER TABLE owner.table ADD PRIMARY KEY (...);";

/// DM8's large-object types: a value past the inline size is logged as
/// `OUT_CLOB`, without its content.
fn is_dm_lob(data_type: &str) -> bool {
    let base = data_type
        .split('(')
        .next()
        .unwrap_or(data_type)
        .trim()
        .to_ascii_uppercase();
    matches!(
        base.as_str(),
        "BLOB" | "CLOB" | "TEXT" | "IMAGE" | "LONGVARCHAR" | "LONGVARBINARY" | "LONG"
    )
}

pub fn tbl_types(f: &Facts, _d: &CheckDef) -> Outcome {
    let tables = need!(f, tables, "tables");
    if tables.is_empty() {
        return Outcome::skip("no table in scope");
    }
    let mut t = Tally::default();
    for tab in tables {
        let lobs: Vec<String> = tab
            .columns
            .iter()
            .filter(|c| is_dm_lob(&c.data_type))
            .map(|c| format!("{} {}", c.name, c.data_type))
            .collect();
        if !lobs.is_empty() {
            t.warn(format!(
                "{}: {}: a large value is logged as OUT_CLOB without its content and arrives as \
                 the unavailable-value placeholder",
                tab.name,
                lobs.join(", ")
            ));
        }
    }
    t.finish(format!("{} table(s) have no LOB column", tables.len()))
}
