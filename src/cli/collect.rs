//! `cdcctl collect`: prints the evidence script for the database's own
//! client (SQL*Plus for Oracle, disql for DM8, yasql for YashanDB), or with
//! `--from-source` writes the evidence JSON of the current `--source`: the
//! facts preflight would read (for `--table` and `--config`, gathered by
//! the same code) rendered as the rows the script would have spooled.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use cdcctl::preflight::collect::{script_for, ScriptRelease};
use cdcctl::preflight::defs;
use cdcctl::preflight::facts::RuleOptions;
use cdcctl::source::Dialect;

use super::exit;
use super::preflight::{gather, load_config, open_source, parse_patterns, parse_specs, CliError};
use super::GlobalArgs;

/// The database a script is written for, and so its client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DialectArg {
    /// Oracle, a SQL*Plus script.
    Oracle,
    /// Dameng DM8, a disql script.
    Dm,
    /// YashanDB, a yasql script.
    Yashandb,
}

impl DialectArg {
    fn dialect(self) -> Dialect {
        match self {
            DialectArg::Oracle => Dialect::Oracle,
            DialectArg::Dm => Dialect::Dm,
            DialectArg::Yashandb => Dialect::Yashandb,
        }
    }
}

/// Print the offline evidence script (`cdcctl collect > collect.sql`).
#[derive(Debug, clap::Args)]
pub struct CollectArgs {
    /// The database the script runs on: `oracle` (a SQL*Plus script, the
    /// default), `dm` (a disql script for Dameng DM8) or `yashandb` (a
    /// yasql script). Each spools the same evidence JSON.
    #[arg(long, value_enum, value_name = "DIALECT")]
    pub dialect: Option<DialectArg>,
    /// Limit the table queries to SCHEMA.TABLE (repeatable; % and _
    /// wildcards; with --from-source a bare TABLE is looked up in every
    /// schema you can see, as preflight does).
    #[arg(long = "table", value_name = "SCHEMA.TABLE")]
    pub tables: Vec<String>,
    /// With --from-source: the connector config preflight lints. Its
    /// tables (without --table) and its PDB decide which tables are read.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// File name the script spools to.
    #[arg(long, default_value = "cdcctl-evidence.json", value_name = "FILE")]
    pub spool: String,
    /// The Oracle release the script runs on: 18c and later (the default,
    /// 19) build rows with JSON_OBJECT; `--oracle-version 11.2`, `12.1` or
    /// `12.2` print the variant that builds them in PL/SQL, with that
    /// release's columns.
    // `--version` was this option's first name; it stays a hidden alias so
    // scripts written for it keep working, while help shows only the name
    // that cannot be read as the tool's own --version.
    #[arg(long, value_name = "RELEASE", alias = "version")]
    pub oracle_version: Option<String>,
    /// Write the evidence JSON of --source instead of the script.
    #[arg(long)]
    pub from_source: bool,
    /// Where to write (default, or `-`: stdout).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub fn run(args: CollectArgs, global: &GlobalArgs) -> ExitCode {
    match execute(args, global) {
        Ok(c) => c,
        Err(e) => e.exit("collect"),
    }
}

fn execute(args: CollectArgs, global: &GlobalArgs) -> Result<ExitCode, CliError> {
    if args.spool.contains(char::is_whitespace) || args.spool.contains(['\'', '"', ';']) {
        return Err(CliError::Usage(format!(
            "--spool `{}`: use a file name without spaces or quotes",
            args.spool
        )));
    }
    if args.from_source && args.dialect.is_some() {
        return Err(CliError::Usage(
            "--dialect picks a script; with --from-source the evidence takes the dialect of --source"
                .into(),
        ));
    }
    let dialect = args.dialect.map_or(Dialect::Oracle, DialectArg::dialect);
    if dialect != Dialect::Oracle && args.oracle_version.is_some() {
        return Err(CliError::Usage(
            "--oracle-version names an Oracle release: the DM8 and YashanDB scripts have one form"
                .into(),
        ));
    }
    let text = if args.from_source {
        let specs = parse_specs(&args.tables)?;
        let config = load_config(args.config.as_deref())?;
        let (mut opened, label) = open_source(global, None)?;
        let facts = gather(&mut opened, &specs, config, RuleOptions::default(), |_| {})?;
        let ev = facts.to_evidence(&label);
        let mut s = serde_json::to_string_pretty(&ev)
            .map_err(|e| CliError::Usage(format!("cannot render the evidence: {e}")))?;
        s.push('\n');
        s
    } else {
        if args.config.is_some() {
            return Err(CliError::Usage(
                "--config needs --from-source: the script reads the tables named by --table".into(),
            ));
        }
        let patterns = parse_patterns(&args.tables)?;
        let defs = defs::load()
            .map_err(|e| CliError::Usage(format!("the built-in check catalog is broken: {e}")))?;
        if dialect == Dialect::Oracle {
            let release = ScriptRelease::parse(args.oracle_version.as_deref().unwrap_or("19"))
                .map_err(CliError::Usage)?;
            script_for(&defs, &patterns, &args.spool, release)
        } else {
            cdcctl::preflight::collect_line::script(&defs, &patterns, &args.spool, dialect)
        }
    };
    match args
        .output
        .as_deref()
        .filter(|p| *p != std::path::Path::new("-"))
    {
        Some(path) => std::fs::write(path, text).map_err(|e| {
            CliError::Usage(format!(
                "cannot write {}: {e}; choose a writable path",
                path.display()
            ))
        })?,
        None => {
            let mut out = std::io::stdout().lock();
            // A reader that went away (`| head`) is not an error.
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
        }
    }
    Ok(exit::code(exit::OK))
}
