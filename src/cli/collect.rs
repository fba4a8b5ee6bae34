//! `cdcctl collect`: prints the SQL*Plus evidence script, or with
//! `--from-source` writes the evidence JSON of the current `--source`: the
//! facts preflight would read (for `--table` and `--config`, gathered by
//! the same code) rendered as the rows the script would have spooled.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use cdcctl::preflight::collect::{script_for, ScriptRelease};
use cdcctl::preflight::defs;
use cdcctl::preflight::facts::RuleOptions;

use super::exit;
use super::preflight::{gather, load_config, open_source, parse_patterns, parse_specs, CliError};
use super::GlobalArgs;

/// Print the offline evidence script (`cdcctl collect > collect.sql`).
#[derive(Debug, clap::Args)]
pub struct CollectArgs {
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
    /// The database release the script runs on: 18c and later (the default)
    /// build rows with JSON_OBJECT; `--version 11.2`, `12.1` or `12.2` print
    /// the variant that builds them in PL/SQL, with that release's columns.
    #[arg(long, value_name = "RELEASE", default_value = "19")]
    pub version: String,
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
        let release = ScriptRelease::parse(&args.version).map_err(CliError::Usage)?;
        script_for(&defs, &patterns, &args.spool, release)
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
