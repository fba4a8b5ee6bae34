//! `cdcctl partitions [SCHEMA.]TABLE`: the partitioning of one table and its
//! capture risks (interval partitions created during a snapshot, replaced
//! segments, recent partition DDL, unusable local index partitions).

use std::io::Write;
use std::process::ExitCode;

use cdcctl::output::partitions::render;
use cdcctl::preflight::partitions::report;
use cdcctl::preflight::rules::snapshot::snapshot_seconds;
use cdcctl::source::{Catalog, TableFacts};
use chrono::Duration;

use super::exit;
use super::preflight::{open_catalog, CliError, Opened};
use super::source::point_at_pdb;
use super::GlobalArgs;
use cdcctl::connect::tables;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PartitionsFormat {
    Human,
    Json,
}

/// Show a table's partitions and the risks they pose to a snapshot.
#[derive(Debug, clap::Args)]
pub struct PartitionsArgs {
    /// The table: SCHEMA.TABLE, or TABLE when only one schema you can see has it.
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
        Err(e) => e.exit("partitions"),
    }
}

/// The one table named by `text`, by the rule every command shares.
fn find(catalog: &mut dyn Catalog, text: &str) -> Result<TableFacts, CliError> {
    let spec = tables::parse_spec(text).map_err(CliError::Usage)?;
    if spec.is_pattern() {
        return Err(CliError::Usage(format!(
            "`{text}`: name one table, without wildcards"
        )));
    }
    let mut resolved = tables::resolve(catalog, &[spec]).map_err(CliError::Usage)?;
    match resolved.tables.len() {
        1 => Ok(resolved.tables.remove(0)),
        _ => {
            let names: Vec<String> = resolved.tables.iter().map(|t| t.name.to_string()).collect();
            Err(CliError::Usage(format!(
                "`{text}` matches several tables ({}): name one",
                names.join(", ")
            )))
        }
    }
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
    if args.format == PartitionsFormat::Human {
        super::source::announce_simulator("partitions", &global.source);
    }
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
