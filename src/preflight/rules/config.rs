//! Connector-config lint against the database facts: CONTINUOUS_MINE on 19c,
//! database/PDB names against the CDB layout, the service, name case, chunk
//! key, mining strategy, archive destination, `log.mining.*` ranges, clear
//! passwords, chunk size on interval-partitioned tables.

use super::{inst, need, need_config};
use crate::preflight::defs::CheckDef;
use crate::preflight::facts::Facts;
use crate::preflight::model::{Outcome, Tally};
use crate::preflight::rules::tables::recent_ddl;

pub fn continuous_mine(f: &Facts, _d: &CheckDef) -> Outcome {
    let c = need_config!(f);
    let i = need!(f, instance, "instance");
    let key = c.key_of(&["log.mining.continuous.mine"]);
    match (c.flag(&["log.mining.continuous.mine"]), i.major_version()) {
        (Some(true), Some(major)) if major >= 19 => Outcome::fail(format!(
            "'{}' = 'true' on Oracle {}: CONTINUOUS_MINE is desupported from 19c, START_LOGMNR raises ORA-44609",
            key.unwrap_or_default(),
            i.version
        )),
        (Some(true), Some(major)) if (major == 12 && i.minor_version().unwrap_or(0) >= 2) || major == 18 => {
            Outcome::warn(format!(
                "CONTINUOUS_MINE is deprecated on {} and gone from 19c: plan to turn it off before upgrading",
                i.version
            ))
        }
        (Some(true), _) => Outcome::pass(format!("CONTINUOUS_MINE is still available on {}", i.version)),
        _ => Outcome::pass("CONTINUOUS_MINE is not asked for"),
    }
}

pub fn database_name(f: &Facts, _d: &CheckDef) -> Outcome {
    let c = need_config!(f);
    let i = need!(f, instance, "instance");
    let pdbs: Vec<&str> = i.pdbs.iter().map(|p| p.name.as_str()).collect();
    let is_pdb = |n: &str| pdbs.iter().any(|p| p.eq_ignore_ascii_case(n));
    let ev = format!(
        "CDB = {}, DB_NAME = {}, PDBs: {}",
        if i.cdb { "YES" } else { "NO" },
        i.db_name,
        if pdbs.is_empty() {
            "none".to_string()
        } else {
            pdbs.join(", ")
        }
    );
    let mut t = Tally::default();
    t.note(ev);
    let pdb = c.pdb_name();
    let db = c.database_name();
    if !i.cdb {
        if let Some(p) = pdb {
            t.fail(format!(
                "database.pdb.name = {p} on a database that is not a CDB"
            ));
        }
        let key = if c.format.is_flink() {
            "'debezium.database.pdb.name'"
        } else {
            "database.pdb.name"
        };
        return t
            .finish("a non-CDB with no PDB name configured")
            .fix(format!(
                "remove {key}: {} is not a container database",
                i.db_name
            ));
    }
    // The PDB the fix names: the configured one when it exists, else the
    // one database-name mistakenly names, else the only (or first) PDB.
    let target = pdb
        .filter(|p| is_pdb(p))
        .or(db.filter(|d| is_pdb(d)))
        .or(pdbs.first().copied())
        .map(str::to_ascii_uppercase)
        .unwrap_or_else(|| "<PDB name>".into());
    let fix = if c.format.is_flink() {
        format!(
            "'database-name' = '{cdb}',\n'debezium.database.pdb.name' = '{target}'",
            cdb = i.db_name
        )
    } else {
        format!(
            "database.dbname={cdb}\ndatabase.pdb.name={target}",
            cdb = i.db_name
        )
    };
    let fix = if pdbs.len() > 1 {
        format!("{fix}\n-- PDBs of this CDB: {}", pdbs.join(", "))
    } else {
        fix
    };
    if let Some(p) = pdb {
        if !is_pdb(p) {
            t.fail(format!("database.pdb.name = {p} names no PDB of this CDB"));
        }
    } else if c.format.is_flink() {
        // Flink CDC passes database-name to Debezium as database.dbname,
        // which on a CDB is the CDB; the PDB goes in debezium.database.pdb.name.
        match db {
            Some(db) if is_pdb(db) => t.fail(format!(
                "database-name = {db} names a PDB: keep database-name = {cdb} (the CDB) and set 'debezium.database.pdb.name' = '{db}'",
                cdb = i.db_name
            )),
            Some(db) if db.eq_ignore_ascii_case(&i.db_name) => t.fail(format!(
                "database-name = {db} names the CDB and no PDB is configured: keep it and set 'debezium.database.pdb.name' = '{}'",
                pdbs.first().copied().unwrap_or("ORCLPDB1")
            )),
            Some(db) => t.fail(format!(
                "database-name = {db} is neither a PDB nor the CDB (PDBs: {})",
                pdbs.join(", ")
            )),
            None => t.fail("database-name is not set"),
        }
    } else {
        t.fail(format!(
            "the database is a CDB and database.pdb.name is not set (PDBs: {})",
            pdbs.join(", ")
        ));
    }
    t.finish("the configured names match the CDB layout")
        .fix(fix)
}

fn service_matches(wanted: &str, name: &str, network: Option<&str>) -> bool {
    let base = |s: &str| s.split('.').next().unwrap_or(s).to_ascii_uppercase();
    let w = wanted.to_ascii_uppercase();
    name.eq_ignore_ascii_case(wanted)
        || network.is_some_and(|n| n.eq_ignore_ascii_case(wanted))
        || base(name) == w
        || base(wanted) == base(name)
}

pub fn service(f: &Facts, _d: &CheckDef) -> Outcome {
    let c = need_config!(f);
    let i = need!(f, instance, "instance");
    let Some(svc) = c.service() else {
        return Outcome::skip(
            "the config names no service (url, database-name or database.dbname)",
        );
    };
    if i.services.is_empty() {
        return Outcome::skip("V$SERVICES was not read");
    }
    let known: Vec<String> = i
        .services
        .iter()
        .map(|s| format!("{} ({})", s.name, s.pdb.clone().unwrap_or_default()))
        .collect();
    match i
        .services
        .iter()
        .find(|s| service_matches(&svc, &s.name, s.network_name.as_deref()))
    {
        Some(s) => Outcome::pass(format!(
            "service {svc} is registered{}",
            s.pdb
                .as_deref()
                .map(|p| format!(" for {p}"))
                .unwrap_or_default()
        )),
        None => Outcome::fail(format!(
            "service {svc} is not registered: connecting fails with ORA-12514"
        ))
        .with(format!("V$SERVICES: {}", known.join(", "))),
    }
}

fn is_plain_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '#'))
}

/// Configured `schema.table` names that do not exist as written, each
/// with the dictionary's spelling when only the case differs.
pub(crate) fn name_case_issues(
    f: &Facts,
    names: &[(String, String)],
) -> (Vec<String>, Vec<String>) {
    let (mut issues, mut notes) = (Vec::new(), Vec::new());
    for (schema, table) in names {
        if !is_plain_name(schema) || !is_plain_name(table) {
            notes.push(format!(
                "{schema}.{table} is a pattern; compared as written"
            ));
            continue;
        }
        let exact = f
            .candidates
            .iter()
            .any(|x| x.name.owner == *schema && x.name.table == *table);
        if exact {
            continue;
        }
        let ci: Vec<String> = f
            .candidates
            .iter()
            .filter(|x| {
                x.name.owner.eq_ignore_ascii_case(schema)
                    && x.name.table.eq_ignore_ascii_case(table)
            })
            .map(|x| format!("\"{}\".\"{}\"", x.name.owner, x.name.table))
            .collect();
        if ci.is_empty() {
            issues.push(format!("{schema}.{table} does not exist"));
        } else {
            issues.push(format!(
                "{schema}.{table} does not exist as written; the dictionary has {}: names are case-sensitive",
                ci.join(", ")
            ));
        }
    }
    (issues, notes)
}

pub fn name_case(f: &Facts, _d: &CheckDef) -> Outcome {
    let c = need_config!(f);
    let _ = need!(f, tables, "tables");
    let names = c.table_names();
    if names.is_empty() {
        return Outcome::skip("the config names no schema.table");
    }
    let mut t = Tally::default();
    let (issues, notes) = name_case_issues(f, &names);
    for i in issues {
        // Flink CDC compares schema-name/table-name as written; Debezium's
        // include lists are regular expressions that may still match.
        if c.format.is_flink() || !i.contains("as written") {
            t.fail(i);
        } else {
            t.warn(i);
        }
    }
    for n in notes {
        t.note(n);
    }
    t.finish(format!(
        "{} configured table name(s) match the dictionary",
        names.len()
    ))
}

pub fn chunk_key(f: &Facts, _d: &CheckDef) -> Outcome {
    let c = need_config!(f);
    let tables = need!(f, tables, "tables");
    let Some(col) = c.get(&["scan.incremental.snapshot.chunk.key-column"]) else {
        return Outcome::pass("no chunk key column configured (the primary key is used)");
    };
    if tables.is_empty() {
        return Outcome::skip("no table in scope");
    }
    let mut t = Tally::default();
    for tab in tables {
        let Some(column) = tab
            .columns
            .iter()
            .find(|x| x.name.eq_ignore_ascii_case(col))
        else {
            t.fail(format!(
                "{}: chunk key column {col} does not exist",
                tab.name
            ));
            continue;
        };
        let name = column.name.as_str();
        let unique = tab
            .constraints
            .iter()
            .any(|k| k.enabled && k.columns == [name])
            || tab.indexes.iter().any(|i| i.unique && i.columns == [name]);
        let indexed = tab
            .indexes
            .iter()
            .any(|i| i.columns.first().map(String::as_str) == Some(name));
        if !unique {
            t.warn(format!(
                "{}: chunk key {name} is not unique: chunks may overlap or miss rows",
                tab.name
            ));
        }
        if !indexed && !unique {
            t.warn(format!(
                "{}: no index starts with {name}: every chunk query scans the table",
                tab.name
            ));
        }
        if column.nullable {
            t.warn(format!(
                "{}: chunk key {name} is nullable: NULL rows fall outside every chunk",
                tab.name
            ));
        }
    }
    t.finish(format!("chunk key {col} is unique and indexed"))
}

pub fn strategy(f: &Facts, _d: &CheckDef) -> Outcome {
    let c = need_config!(f);
    let _ = need!(f, tables, "tables");
    let s = c
        .get(&["log.mining.strategy"])
        .unwrap_or("online_catalog")
        .to_ascii_lowercase();
    let recent = recent_ddl(f, 24.0);
    match s.as_str() {
        "online_catalog" if !recent.is_empty() => Outcome::warn(format!(
            "strategy online_catalog with DDL in the last 24 h on {} table(s): older redo decodes as OBJ# n",
            recent.len()
        ))
        .with_all(recent),
        "redo_log_catalog" => Outcome::pass(
            "redo_log_catalog: the dictionary is written to redo at each mining session; it needs large redo logs and adds log switches",
        ),
        other => Outcome::pass(format!("strategy {other}")),
    }
}

pub fn archive_dest(f: &Facts, _d: &CheckDef) -> Outcome {
    let c = need_config!(f);
    let Some(v) = c.get(&[
        "log.mining.archive.destination.name",
        "archive.destination.name",
    ]) else {
        return Outcome::pass("no archive destination pinned (see arch-dest)");
    };
    if v.contains('/') || v.contains('\\') || v.starts_with('+') {
        return Outcome::fail(format!(
            "archive destination `{v}` is a path; the option takes a DEST_NAME such as LOG_ARCHIVE_DEST_1"
        ));
    }
    let inv = need!(f, inventory, "logs");
    if inv.destinations.is_empty() {
        return Outcome::skip("V$ARCHIVE_DEST_STATUS was not read");
    }
    let names: Vec<&str> = inv
        .destinations
        .iter()
        .map(|d| d.dest_name.as_str())
        .collect();
    if names.iter().any(|n| n.eq_ignore_ascii_case(v)) {
        Outcome::pass(format!("{v} is an archive destination"))
    } else {
        Outcome::fail(format!(
            "{v} names no archive destination ({})",
            names.join(", ")
        ))
    }
}

pub fn mining_ranges(f: &Facts, _d: &CheckDef) -> Outcome {
    let c = need_config!(f);
    let mut t = Tally::default();
    let num = |k: &str| c.number(&[k]);
    let (bmin, bdef, bmax) = (
        num("log.mining.batch.size.min").unwrap_or(1000.0),
        num("log.mining.batch.size.default").unwrap_or(20000.0),
        num("log.mining.batch.size.max").unwrap_or(100000.0),
    );
    if !(bmin <= bdef && bdef <= bmax) {
        t.warn(format!(
            "batch sizes are out of order: min {bmin} <= default {bdef} <= max {bmax} does not hold"
        ));
    }
    if bdef > 100_000.0 {
        t.warn(format!(
            "log.mining.batch.size.default = {bdef}: SCN windows that large keep LogMiner sessions long and PGA high"
        ));
    }
    let (smin, sdef, smax) = (
        num("log.mining.sleep.time.min.ms").unwrap_or(0.0),
        num("log.mining.sleep.time.default.ms").unwrap_or(1000.0),
        num("log.mining.sleep.time.max.ms").unwrap_or(3000.0),
    );
    if !(smin <= sdef && sdef <= smax) {
        t.warn(format!("sleep times are out of order: min {smin} <= default {sdef} <= max {smax} does not hold"));
    }
    for (wrong, right) in [
        (
            "log.mining.sleep.time.ms",
            "log.mining.sleep.time.default.ms",
        ),
        (
            "log.mining.batch.size.max.default",
            "log.mining.batch.size.max",
        ),
    ] {
        if let Some(key) = c.key_of(&[wrong]) {
            t.note(format!(
                "{key} is not a Debezium option and is ignored; did you mean {right}?"
            ));
        }
    }
    match num("log.mining.session.max.ms") {
        None | Some(0.0) => t.warn(
            "log.mining.session.max.ms is unset: the LogMiner session never restarts and PGA grows until ORA-04036",
        ),
        Some(_) => {}
    }
    if let (Some(h), Some(inv)) = (
        num("log.mining.archive.log.hours").or(num("archive.log.hours")),
        f.inventory.as_ref(),
    ) {
        let now = f.now();
        if let Some(oldest) = inv
            .archived
            .iter()
            .filter(|a| a.is_available())
            .filter_map(|a| a.first_time)
            .min()
        {
            let have = (now - oldest).num_minutes() as f64 / 60.0;
            if h > have {
                t.warn(format!(
                    "archive.log.hours = {h} but archived logs reach back only {have:.1} h"
                ));
            }
        }
    }
    t.finish("log.mining.* values are in range")
}

pub fn password(f: &Facts, _d: &CheckDef) -> Outcome {
    let c = need_config!(f);
    let clear = c.clear_passwords();
    if clear.is_empty() {
        Outcome::pass("no password is written in clear")
    } else {
        // The value itself is never echoed.
        Outcome::warn(format!(
            "{} holds a password in clear text in {}",
            clear.join(", "),
            c.path
        ))
    }
}

pub fn chunk_size(f: &Facts, d: &CheckDef) -> Outcome {
    let c = need_config!(f);
    let tables = need!(f, tables, "tables");
    let size = c.flink_chunk_rows();
    let max = d.threshold("max_rows", 4096.0);
    let interval: Vec<String> = tables
        .iter()
        .filter(|t| {
            t.partitioning
                .as_ref()
                .is_some_and(|p| p.interval.is_some())
        })
        .map(|t| t.name.to_string())
        .collect();
    if interval.is_empty() {
        return Outcome::pass("no interval-partitioned table in scope");
    }
    if size > max {
        Outcome::warn(format!(
            "scan.incremental.snapshot.chunk.size = {size} on interval-partitioned table(s): long chunk queries meet new partitions (ORA-08103) and undo limits (ORA-01555)"
        ))
        .with_all(interval)
    } else {
        Outcome::pass(format!("chunk size {size} is small enough")).with_all(interval)
    }
}

pub fn lint(f: &Facts, _d: &CheckDef) -> Outcome {
    let c = need_config!(f);
    let mut t = Tally::default();
    for p in &c.problems {
        t.warn(p.clone());
    }
    let lob = c.flag(&["lob.enabled"]).unwrap_or(false);
    let strategy = c
        .get(&["log.mining.strategy"])
        .unwrap_or("")
        .to_ascii_lowercase();
    if lob && strategy == "hybrid" {
        t.fail("log.mining.strategy=hybrid with lob.enabled=true is rejected at start-up");
    }
    for key in [
        "table.include.list",
        "schema.include.list",
        "table.exclude.list",
        "column.include.list",
    ] {
        if let Some(v) = c.get(&[key]) {
            for bad in ["(?i)", "(?=", "(?!", "(?<", "\\d", "\\w", "\\s"] {
                if v.contains(bad) {
                    t.fail(format!(
                        "{key} uses `{bad}`, which POSIX regular expressions do not support"
                    ));
                }
            }
        }
    }
    if let Some(v) = c.get(&["snapshot.include.collection.list"]) {
        for item in v.split(',') {
            if item.trim().split('.').count() != 3 {
                t.warn(format!(
                    "snapshot.include.collection.list entry `{}` is not PDB.SCHEMA.TABLE",
                    item.trim()
                ));
            }
        }
    }
    if let Some(i) = inst(f) {
        t.note(format!("checked against Oracle {}", i.version));
    }
    t.note(format!(
        "{} ({} options)",
        c.format.as_str(),
        c.options.len()
    ));
    t.finish("the options are consistent with each other")
}
