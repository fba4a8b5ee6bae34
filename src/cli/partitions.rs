//! `cdcctl partitions [SCHEMA.]TABLE`: the partitioning of one table and its
//! capture risks (interval partitions created during a snapshot, replaced
//! segments, recent partition DDL, unusable local index partitions).

use std::io::Write;
use std::process::ExitCode;

use cdcctl::output::partitions::render;
use cdcctl::preflight::partitions::report;
use cdcctl::preflight::rules::snapshot::snapshot_seconds;
use cdcctl::source::{Catalog, TableFacts, TablePattern};
use chrono::Duration;

use super::exit;
use super::preflight::{open_catalog, CliError, Opened};
use super::source::point_at_pdb;
use super::GlobalArgs;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PartitionsFormat {
    Human,
    Json,
}

/// Show a table's partitions and the risks they pose to a snapshot.
#[derive(Debug, clap::Args)]
pub struct PartitionsArgs {
    /// The table: SCHEMA.TABLE, or TABLE when only one schema has it.
    #[arg(value_name = "[SCHEMA.]TABLE")]
    pub table: String,
    #[arg(long, value_enum, default_value = "human")]
    pub format: PartitionsFormat,
    /// Read rate assumed when estimating the snapshot's duration (MB/s).
    #[arg(long, default_value_t = 50.0, value_name = "MBPS")]
    pub snapshot_rate_mbps: f64,
    /// Look-back window for partition DDL, days.
    #[arg(long, default_value_t = 7, value_name = "DAYS")]
    pub recent_days: i64,
    /// The PDB holding the table, when connected to CDB$ROOT (default: the
    /// only open PDB). Upper case unless written in double quotes.
    #[arg(long, value_name = "PDB")]
    pub pdb: Option<String>,
}

pub fn run(args: PartitionsArgs, global: &GlobalArgs) -> ExitCode {
    match execute(args, global) {
        Ok(c) => c,
        Err(e) => e.exit(),
    }
}

fn pattern(text: &str) -> Result<TablePattern, CliError> {
    if text.contains('%') {
        return Err(CliError::Usage(format!(
            "`{text}`: name one table, without wildcards"
        )));
    }
    if text.contains('.') {
        return TablePattern::parse(text).map_err(CliError::Usage);
    }
    TablePattern::parse(&format!("\"%\".{text}"))
        .map(|p| TablePattern {
            owner: "%".into(),
            table: p.table,
        })
        .map_err(|_| CliError::Usage(format!("`{text}` is not a table name")))
}

/// Levenshtein distance, for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

fn find(catalog: &mut dyn Catalog, text: &str) -> Result<TableFacts, CliError> {
    let p = pattern(text)?;
    let found = catalog.tables(std::slice::from_ref(&p))?;
    let exact: Vec<TableFacts> = found
        .into_iter()
        .filter(|t| (p.owner == "%" || t.name.owner == p.owner) && t.name.table == p.table)
        .collect();
    match exact.len() {
        1 => {
            return exact
                .into_iter()
                .next()
                .ok_or_else(|| CliError::Usage("no table".into()))
        }
        n if n > 1 => {
            let user = catalog.session().map(|s| s.user).unwrap_or_default();
            if let Some(t) = exact.iter().find(|t| t.name.owner == user) {
                return Ok(t.clone());
            }
            let names: Vec<String> = exact.iter().map(|t| t.name.to_string()).collect();
            return Err(CliError::Usage(format!(
                "table {} exists in several schemas ({}): pass SCHEMA.TABLE",
                p.table,
                names.join(", ")
            )));
        }
        _ => {}
    }
    let all = catalog.tables(&[]).unwrap_or_default();
    let wanted = format!("{}.{}", p.owner, p.table);
    let mut close: Vec<(usize, String)> = all
        .iter()
        .map(|t| {
            let d = if p.owner == "%" {
                distance(&p.table.to_uppercase(), &t.name.table.to_uppercase())
            } else {
                distance(&wanted.to_uppercase(), &t.name.to_string().to_uppercase())
            };
            (d, t.name.to_string())
        })
        .filter(|(d, _)| *d <= 3)
        .collect();
    close.sort();
    let hint = if close.is_empty() {
        "; check the name with `cdcctl preflight --list` or your schema browser".to_string()
    } else {
        format!(
            "; did you mean {}?",
            close
                .iter()
                .take(3)
                .map(|(_, n)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    Err(CliError::Usage(format!(
        "table {} does not exist{hint}",
        if p.owner == "%" {
            p.table.clone()
        } else {
            wanted
        }
    )))
}

fn execute(args: PartitionsArgs, global: &GlobalArgs) -> Result<ExitCode, CliError> {
    if !(args.snapshot_rate_mbps > 0.0 && args.snapshot_rate_mbps.is_finite()) {
        return Err(CliError::Usage(
            "--snapshot-rate-mbps must be a positive number".into(),
        ));
    }
    // chrono represents about 262,000 years; a look-back beyond a century
    // is a typo, not a window.
    if !(0..=36_500).contains(&args.recent_days) {
        return Err(CliError::Usage(format!(
            "--recent-days must be between 0 and 36500, not {}",
            args.recent_days
        )));
    }
    let mut opened = open_catalog(global)?;
    // Offline facts were read already; a live source from CDB$ROOT reads
    // the table inside its PDB.
    if matches!(opened, Opened::Live(_)) || args.pdb.is_some() {
        point_at_pdb(opened.catalog(), args.pdb.as_deref()).map_err(|e| {
            if e.exit_code == exit::USAGE {
                CliError::Usage(e.message)
            } else {
                CliError::Unreachable(e.message)
            }
        })?;
    }
    let catalog = opened.catalog();
    let table = find(catalog, &args.table)?;
    let now = catalog
        .instance()
        .ok()
        .and_then(|i| i.now)
        .unwrap_or_else(|| chrono::Utc::now().naive_utc());
    let secs = snapshot_seconds(table.segment_bytes.unwrap_or(0), args.snapshot_rate_mbps);
    let rep = report(
        &table,
        now,
        Duration::seconds(secs.ceil() as i64),
        Duration::days(args.recent_days),
    );
    let text = match args.format {
        PartitionsFormat::Json => {
            let mut s = serde_json::to_string_pretty(&rep)
                .map_err(|e| CliError::Usage(format!("cannot render JSON: {e}")))?;
            s.push('\n');
            s
        }
        PartitionsFormat::Human => {
            let width = cdcctl::output::stdout_width();
            render(&rep, width)
        }
    };
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    Ok(exit::code(exit::OK))
}
