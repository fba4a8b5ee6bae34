//! Per-table rules over the in-scope tables: keys, supplemental log groups,
//! name lengths, types, LOBs, storage, recent DDL, partition churn.

use chrono::Duration;

use super::{db_all_columns, is_lob_like, need};
use crate::preflight::defs::CheckDef;
use crate::preflight::facts::Facts;
use crate::preflight::model::{Outcome, Tally};
use crate::preflight::partitions::{analyse_with_lookahead, interval_steps, ADVICE};
use crate::preflight::remedy;
use crate::preflight::rules::snapshot::snapshot_seconds;

macro_rules! need_tables {
    ($f:expr) => {{
        let t = need!($f, tables, "tables");
        if t.is_empty() {
            return Outcome::skip("no table in scope");
        }
        t
    }};
}

pub fn tbl_key(f: &Facts, _d: &CheckDef) -> Outcome {
    let tables = need_tables!(f);
    let all = db_all_columns(f);
    let mut t = Tally::default();
    let mut keyless = Vec::new();
    for tab in tables {
        let key = tab
            .constraints
            .iter()
            .any(|c| c.enabled && (c.constraint_type == "P" || c.constraint_type == "U"));
        if !key {
            t.note(keyless_snapshot_note(f, &tab.name));
        }
        if !key && !all && !tab.has_log_group("ALL COLUMN LOGGING") {
            t.fail(format!(
                "{}: no primary or unique key and no ALL COLUMN logging: updates and deletes carry incomplete before images",
                tab.name
            ));
            keyless.push(&tab.name);
        }
    }
    t.finish(format!(
        "{} table(s) have a key or all-column logging",
        tables.len()
    ))
    .fix(remedy::per_table(ALL_COLUMNS_LOGGING, keyless) + "  -- or add a primary key")
}

/// What the snapshot does with a table without a key: ROWID chunks, one
/// extent each when `DBA_EXTENTS` is readable, else the whole table sorted
/// by ROWID for every chunk; and no per-key reconciliation with the stream.
fn keyless_snapshot_note(f: &Facts, table: &crate::source::TableName) -> String {
    let catalog = f.session.as_ref().map(|s| {
        s.has_role("SELECT_CATALOG_ROLE")
            || s.has_role("DBA")
            || s.has_privilege("SELECT ANY DICTIONARY")
    });
    let reads = match catalog {
        Some(false) => {
            "without DBA_EXTENTS (no SELECT_CATALOG_ROLE or SELECT ANY DICTIONARY) every chunk \
             reads and sorts the whole table by ROWID"
        }
        _ => "it reads one extent (DBA_EXTENTS) per chunk, by ROWID",
    };
    format!(
        "{table}: no key, so the snapshot pages it by ROWID: {reads}; its rows cannot be \
         matched with streamed changes by key, so read it while it is quiet"
    )
}

const ALL_COLUMNS_LOGGING: &str =
    "ALTER TABLE owner.table ADD SUPPLEMENTAL LOG DATA (ALL) COLUMNS;";

pub fn tbl_supp_log(f: &Facts, _d: &CheckDef) -> Outcome {
    let tables = need_tables!(f);
    if db_all_columns(f) {
        return Outcome::pass("database-level ALL COLUMNS supplemental logging is on");
    }
    let mut t = Tally::default();
    let mut missing = Vec::new();
    for tab in tables {
        if !tab.has_log_group("ALL COLUMN LOGGING") {
            let groups: Vec<&str> = tab
                .log_groups
                .iter()
                .map(|g| g.log_group_type.as_str())
                .collect();
            t.warn(format!(
                "{}: no ALL COLUMN log group ({}): before images hold only the changed and key columns",
                tab.name,
                if groups.is_empty() { "none".to_string() } else { groups.join(", ") }
            ));
            missing.push(&tab.name);
        }
    }
    t.finish(format!("{} table(s) log all columns", tables.len()))
        .fix(remedy::per_table(ALL_COLUMNS_LOGGING, missing))
}

pub fn tbl_name_len(f: &Facts, d: &CheckDef) -> Outcome {
    let tables = need_tables!(f);
    let max = d.threshold("max_bytes", 30.0) as usize;
    let mut t = Tally::default();
    for tab in tables {
        if tab.name.table.len() > max {
            t.fail(format!(
                "{}: table name is {} bytes (over {max})",
                tab.name,
                tab.name.table.len()
            ));
        }
        for c in &tab.columns {
            if c.name.len() > max {
                t.fail(format!(
                    "{}.{}: column name is {} bytes (over {max})",
                    tab.name,
                    c.name,
                    c.name.len()
                ));
            }
        }
    }
    t.finish(format!("every name is {max} bytes or fewer"))
}

pub fn tbl_types(f: &Facts, _d: &CheckDef) -> Outcome {
    let tables = need_tables!(f);
    let mut t = Tally::default();
    for tab in tables {
        for c in &tab.columns {
            let dt = c.data_type.as_str();
            let owner = c.data_type_owner.as_deref().unwrap_or("");
            let user_type = !owner.is_empty()
                && !matches!(owner, "SYS" | "PUBLIC" | "MDSYS")
                && !is_lob_like(dt);
            if dt == "BFILE" || user_type {
                t.fail(format!(
                    "{}.{} is {}{dt}: LogMiner skips the whole table",
                    tab.name,
                    c.name,
                    if owner.is_empty() {
                        String::new()
                    } else {
                        format!("{owner}.")
                    }
                ));
            } else if matches!(
                dt,
                "LONG" | "LONG RAW" | "ROWID" | "UROWID" | "BOOLEAN" | "VECTOR"
            ) {
                t.warn(format!(
                    "{}.{} is {dt}: the connector drops the column",
                    tab.name, c.name
                ));
            }
        }
    }
    t.finish("every column type can be captured")
}

pub fn tbl_lob_xml(f: &Facts, _d: &CheckDef) -> Outcome {
    let tables = need_tables!(f);
    let lob_tables: Vec<String> = tables
        .iter()
        .filter(|t| t.columns.iter().any(|c| is_lob_like(&c.data_type)))
        .map(|t| {
            let cols: Vec<String> = t
                .columns
                .iter()
                .filter(|c| is_lob_like(&c.data_type))
                .map(|c| format!("{} {}", c.name, c.data_type))
                .collect();
            format!("{} ({})", t.name, cols.join(", "))
        })
        .collect();
    if lob_tables.is_empty() {
        return Outcome::pass("no LOB, XML or spatial column in scope");
    }
    let lob = f
        .config
        .as_ref()
        .and_then(|c| c.flag(&["lob.enabled"]))
        .unwrap_or(false);
    let strategy = f
        .config
        .as_ref()
        .and_then(|c| c.get(&["log.mining.strategy"]))
        .unwrap_or("online_catalog")
        .to_ascii_lowercase();
    if lob && strategy == "hybrid" {
        return Outcome::fail("log.mining.strategy=hybrid does not support lob.enabled=true: the connector fails to start")
            .with_all(lob_tables);
    }
    if !lob {
        return Outcome::warn(format!(
            "{} table(s) have LOB/XML/spatial columns and lob.enabled is {}: their values arrive as placeholders",
            lob_tables.len(),
            if f.config.is_some() { "off" } else { "off by default" }
        ))
        .with_all(lob_tables);
    }
    Outcome::pass("LOB handling is on").with_all(lob_tables)
}

pub fn tbl_storage(f: &Facts, _d: &CheckDef) -> Outcome {
    let tables = need_tables!(f);
    let mut t = Tally::default();
    for tab in tables {
        let n = &tab.name;
        if tab.temporary {
            t.fail(format!("{n}: global temporary table, never in redo"));
        }
        if tab.nested {
            t.fail(format!("{n}: nested table"));
        }
        if let Some(iot) = tab.iot_type.as_deref() {
            t.warn(format!(
                "{n}: {iot} (index-organized tables are captured only partly by some connectors)"
            ));
        }
        if let Some(c) = tab.compress_for.as_deref() {
            let up = c.to_ascii_uppercase();
            if up.contains("QUERY") || up.contains("ARCHIVE") {
                t.warn(format!("{n}: hybrid columnar compression {c}"));
            }
        }
        for c in &tab.columns {
            if c.virtual_column {
                t.warn(format!("{n}.{}: virtual column (not in redo)", c.name));
            } else if c.hidden {
                t.warn(format!("{n}.{}: invisible or hidden column", c.name));
            }
        }
        if n.owner.contains('\'') || n.table.contains('\'') {
            t.warn(format!("{n}: the name contains an apostrophe"));
        }
    }
    t.finish("every table is a heap or partitioned table without unsupported features")
}

/// The configured mining strategy; Debezium's default is online_catalog.
fn strategy(f: &Facts) -> String {
    f.config
        .as_ref()
        .and_then(|c| c.get(&["log.mining.strategy"]))
        .unwrap_or("online_catalog")
        .to_ascii_lowercase()
}

/// In-scope tables (and partitions) with DDL inside `hours`.
pub(crate) fn recent_ddl(f: &Facts, hours: f64) -> Vec<String> {
    let now = f.now();
    let since = now - Duration::minutes((hours * 60.0) as i64);
    let mut out = Vec::new();
    for tab in f.tables.as_deref().unwrap_or(&[]) {
        if let Some(t) = tab.last_ddl_time.filter(|t| *t > since) {
            out.push(format!("{}: DDL at {t}", tab.name));
        }
    }
    out
}

pub fn tbl_recent_ddl(f: &Facts, d: &CheckDef) -> Outcome {
    let _ = need_tables!(f);
    let hours = d.threshold("recent_hours", 24.0);
    let recent = recent_ddl(f, hours);
    let strategy = strategy(f);
    if recent.is_empty() {
        return Outcome::pass(format!("no DDL in the last {hours} h"));
    }
    if strategy == "online_catalog" {
        Outcome::warn(format!(
            "{} table(s) changed in the last {hours} h and the strategy is online_catalog: redo older than the DDL decodes as OBJ# n / COL n",
            recent.len()
        ))
        .with_all(recent)
    } else {
        Outcome::pass(format!(
            "recent DDL, but the strategy {strategy} tracks the dictionary in redo"
        ))
        .with_all(recent)
    }
}

/// The estimated snapshot duration of the in-scope tables.
pub(crate) fn snapshot_duration(f: &Facts) -> Duration {
    let bytes: u64 = f
        .tables
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .filter_map(|t| t.segment_bytes)
        .sum();
    let s = snapshot_seconds(bytes, f.options.snapshot_rate_mbps);
    Duration::seconds(if s.is_finite() { s.ceil() as i64 } else { 0 })
}

pub fn part_churn(f: &Facts, d: &CheckDef) -> Outcome {
    let tables = need_tables!(f);
    let parted: Vec<_> = tables.iter().filter(|t| t.partitioning.is_some()).collect();
    if parted.is_empty() {
        return Outcome::pass("no partitioned table in scope");
    }
    let now = f.now();
    let snap = snapshot_duration(f);
    let recent = Duration::days(d.threshold("recent_days", 7.0) as i64);
    let lookahead = Duration::days(d.threshold("interval_lookahead_days", 7.0) as i64);
    let mut t = Tally::default();
    let mut fixes = Vec::new();
    for tab in &parted {
        let p = tab.partitioning.as_ref();
        let interval = p.and_then(|p| p.interval.as_deref());
        if let Some(iv) = interval {
            t.note(format!(
                "{}: interval partitioned ({iv}): new partitions get new object ids; capture by table, not partition",
                tab.name
            ));
        }
        let risks = analyse_with_lookahead(tab, now, snap, recent, lookahead);
        for r in &risks {
            t.warn(format!("{}: {}", tab.name, r.detail));
        }
        if !risks.is_empty() {
            fixes.extend(interval_steps(tab));
        }
    }
    let risky = !t.warns.is_empty();
    let mut o = t.finish(format!(
        "{} partitioned table(s), no churn found",
        parted.len()
    ));
    if risky {
        o = o.with_all(ADVICE.iter().map(|a| format!("advice: {a}")));
    }
    if !fixes.is_empty() {
        fixes.push(
            "-- and lower the chunk size (--snapshot-chunk-rows, or 'scan.incremental.snapshot.chunk.size', e.g. 2000)"
                .into(),
        );
        o = o.fix(fixes.join("\n"));
    }
    o
}
