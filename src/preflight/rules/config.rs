//! Connector-config lint against the database facts: CONTINUOUS_MINE on 19c,
//! database/PDB names against the CDB layout, the service, name case, chunk
//! key, mining strategy, archive destination, chunk size on
//! interval-partitioned tables, and the file's own consistency. Fixes come
//! in the syntax of the file they fix ([`crate::preflight::config_syntax`]).

use super::{inst, need, need_config};
use crate::preflight::config::{ConfigFormat, ConnectorConfig};
use crate::preflight::config_syntax::Opt;
use crate::preflight::defs::CheckDef;
use crate::preflight::facts::Facts;
use crate::preflight::model::{Outcome, Tally};
use crate::preflight::rules::tables::recent_ddl;

pub fn continuous_mine(f: &Facts, _d: &CheckDef) -> Outcome {
    let c = need_config!(f);
    let i = need!(f, instance, "instance");
    let key = c.key_of(&["log.mining.continuous.mine"]);
    let off = c
        .format
        .settings(&[(Opt::Debezium("log.mining.continuous.mine"), "false")]);
    let outcome = match (c.flag(&["log.mining.continuous.mine"]), i.major_version()) {
        (Some(true), Some(major)) if major >= 19 => Outcome::fail(format!(
            "{} = true on Oracle {}: CONTINUOUS_MINE is desupported from 19c, START_LOGMNR raises ORA-44609",
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
    };
    outcome.fix(off)
}

pub fn database_name(f: &Facts, _d: &CheckDef) -> Outcome {
    let c = need_config!(f);
    let i = need!(f, instance, "instance");
    let pdbs: Vec<&str> = i.pdbs.iter().map(|p| p.name.as_str()).collect();
    let is_pdb = |n: &str| pdbs.iter().any(|p| p.eq_ignore_ascii_case(n));
    let mut t = Tally::default();
    t.note(format!(
        "CDB = {}, DB_NAME = {}, PDBs: {}",
        if i.cdb { "YES" } else { "NO" },
        i.db_name,
        if pdbs.is_empty() {
            "none".to_string()
        } else {
            pdbs.join(", ")
        }
    ));
    let pdb = c.pdb_name();
    let db = c.database_name();
    // Keys as this file writes them, for the sentences.
    let pdb_key = key_as_written(c, &["pdb.name"], Opt::Debezium("database.pdb.name"));
    let db_key = c
        .key_of(&["database-name", "dbname"])
        .or_else(|| c.format.key(Opt::DatabaseName))
        .unwrap_or_default();
    if !i.cdb {
        if let Some(p) = pdb {
            t.fail(format!("{pdb_key} = {p} on a database that is not a CDB"));
        }
        return t
            .finish("a non-CDB with no PDB name configured")
            .fix(format!(
                "remove {}: {} is not a container database",
                c.format.quote_key(&pdb_key),
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
    let listed = format!("PDBs of this CDB: {}", pdbs.join(", "));
    let comments: &[&str] = if pdbs.len() > 1 { &[&listed] } else { &[] };
    let fix = c.format.with_comments(
        c.format.settings(&[
            (Opt::DatabaseName, &i.db_name),
            (Opt::Debezium("database.pdb.name"), &target),
        ]),
        comments,
    );
    match (pdb, db) {
        (Some(p), _) if !is_pdb(p) => {
            t.fail(format!("{pdb_key} = {p} names no PDB of this CDB"));
        }
        // With a PDB named, the database name is the CDB's: Debezium
        // attaches to the root and switches to the PDB itself.
        (Some(_), Some(d)) if is_pdb(d) => t.fail(format!(
            "{db_key} = {d} names a PDB: with {pdb_key} set, {db_key} must be the CDB ({})",
            i.db_name
        )),
        (Some(_), _) => {}
        (None, db) => t.fail(no_pdb_configured(c, db, &i.db_name, &pdbs, &pdb_key)),
    }
    t.finish("the configured names match the CDB layout")
        .fix(fix)
}

/// Why a CDB with no PDB configured fails, from what the database name
/// names. Flink CDC passes `database-name` to Debezium as `database.dbname`,
/// which on a CDB is the CDB; the PDB goes in `database.pdb.name`.
fn no_pdb_configured(
    c: &ConnectorConfig,
    db: Option<&str>,
    cdb: &str,
    pdbs: &[&str],
    pdb_key: &str,
) -> String {
    let db_key = c.format.key(Opt::DatabaseName).unwrap_or_default();
    let is_pdb = |n: &str| pdbs.iter().any(|p| p.eq_ignore_ascii_case(n));
    match db {
        _ if !c.format.is_flink() => format!(
            "the database is a CDB and {pdb_key} is not set (PDBs: {})",
            pdbs.join(", ")
        ),
        Some(db) if is_pdb(db) => format!(
            "{db_key} = {db} names a PDB: keep {db_key} = {cdb} (the CDB) and set {pdb_key} = {db}"
        ),
        Some(db) if db.eq_ignore_ascii_case(cdb) => format!(
            "{db_key} = {db} names the CDB and no PDB is configured: keep it and set {pdb_key} = {}",
            pdbs.first().copied().unwrap_or("ORCLPDB1")
        ),
        Some(db) => format!(
            "{db_key} = {db} is neither a PDB nor the CDB (PDBs: {})",
            pdbs.join(", ")
        ),
        None => format!("{db_key} is not set"),
    }
}

/// The key of one of `names` as the file writes it, else the key this
/// format gives `opt`.
pub(super) fn key_as_written(c: &ConnectorConfig, names: &[&str], opt: Opt) -> String {
    c.key_of(names)
        .or_else(|| c.format.key(opt))
        .unwrap_or_default()
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
        .with_all(recent)
        .fix(strategy_fix(c.format)),
        "redo_log_catalog" => Outcome::pass(
            "redo_log_catalog: the dictionary is written to redo at each mining session; it needs large redo logs and adds log switches",
        ),
        other => Outcome::pass(format!("strategy {other}")),
    }
}

/// `hybrid` tracks DDL without writing the dictionary to redo, but only
/// from Debezium 2.6; Flink CDC's Oracle connectors bundle Debezium 1.9.
fn strategy_fix(format: ConfigFormat) -> String {
    let opt = Opt::Debezium("log.mining.strategy");
    if format.is_flink() {
        format.with_comments(
            format.settings(&[(opt, "redo_log_catalog")]),
            &["hybrid needs Debezium 2.6+, and Flink CDC bundles Debezium 1.9; or freeze DDL on the captured tables"],
        )
    } else {
        format.with_comments(
            format.settings(&[(opt, "hybrid")]),
            &["Debezium 2.6+; before 2.6, redo_log_catalog, or freeze DDL on the captured tables"],
        )
    }
}

pub fn archive_dest(f: &Facts, _d: &CheckDef) -> Outcome {
    let c = need_config!(f);
    let names = [
        "log.mining.archive.destination.name",
        "archive.destination.name",
    ];
    let Some(v) = c.get(&names) else {
        return Outcome::pass("no archive destination pinned (see arch-dest)");
    };
    // The option as the file names it (Debezium 2.x also reads
    // archive.destination.name; Flink CDC's Debezium 1.9 only the first).
    let written = key_as_written(c, &names, Opt::Debezium(names[0]));
    let name = written.strip_prefix("debezium.").unwrap_or(&written);
    let fix = |dest: &str| c.format.settings(&[(Opt::Debezium(name), dest)]);
    let all = f.inventory.as_ref().map(|i| i.destinations.as_slice());
    let dests: Vec<&str> = all
        .unwrap_or_default()
        .iter()
        .map(|d| d.dest_name.as_str())
        .collect();
    // A local destination that archives: the one the connector can read.
    let suggested = all
        .unwrap_or_default()
        .iter()
        .find(|d| d.status == "VALID" && d.dest_type == "LOCAL")
        .map(|d| d.dest_name.as_str())
        .unwrap_or("LOG_ARCHIVE_DEST_1");
    if v.contains('/') || v.contains('\\') || v.starts_with('+') {
        return Outcome::fail(format!(
            "archive destination `{v}` is a path; the option takes a DEST_NAME such as LOG_ARCHIVE_DEST_1"
        ))
        .fix(fix(suggested));
    }
    let _ = need!(f, inventory, "logs");
    if dests.is_empty() {
        return Outcome::skip("V$ARCHIVE_DEST_STATUS was not read");
    }
    if dests.iter().any(|n| n.eq_ignore_ascii_case(v)) {
        Outcome::pass(format!("{v} is an archive destination"))
    } else {
        Outcome::fail(format!(
            "{v} names no archive destination ({})",
            dests.join(", ")
        ))
        .fix(fix(suggested))
    }
}

pub fn chunk_size(f: &Facts, d: &CheckDef) -> Outcome {
    let c = need_config!(f);
    if !c.format.is_flink() {
        return Outcome::skip(
            "Debezium's initial snapshot reads each table in one query, not in chunks (see undo-vs-snapshot)",
        );
    }
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
        .fix(c.format.settings(&[(
            Opt::Flink("scan.incremental.snapshot.chunk.size"),
            &format!("{}", (max / 2.0).round()),
        )]))
    } else {
        Outcome::pass(format!("chunk size {size} is small enough")).with_all(interval)
    }
}

pub fn lint(f: &Facts, _d: &CheckDef) -> Outcome {
    let c = need_config!(f);
    let mut t = Tally::default();
    for p in &c.refused {
        t.fail(p.clone());
    }
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
