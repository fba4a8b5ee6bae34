//! Opens the source named by `--source`: the built-in simulator or a real
//! Oracle database. Passwords never come from argv: `CDCCTL_PASSWORD`, a
//! prompt on the terminal, or an Oracle wallet.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;

use cdcctl::source::oracle::{OracleSource, Password};
use cdcctl::source::sim::{ScenarioError, Sim, BUILTINS};
use cdcctl::source::{Catalog, RedoSource, SourceError, TableName};

use crate::cli::tables::{self, Resolved, TableSpec};
use crate::cli::{exit, suggest};

/// A redo source ready for capture, with what the engine needs to know of it.
pub struct OpenedSource {
    pub source: Box<dyn RedoSource>,
    /// `source.db` for rows without SRC_CON_NAME.
    pub db_name: String,
    /// The PDB to filter on when mining from CDB$ROOT, if the source knows it.
    pub pdb_filter: Option<String>,
    /// The tables asked for, resolved against the dictionary.
    pub tables: Resolved,
    /// Key columns of the tables in scope, for the engine's dictionary checks.
    pub key_columns: BTreeMap<TableName, Vec<String>>,
    /// Banner version, container and user, for headers.
    pub version: String,
    pub container: String,
    pub user: String,
    /// One line for headers: "sim:demo", "oracle://c##cdcctl@db:1521/ORCLCDB".
    pub description: String,
    /// The scenario, when the source is the built-in simulator.
    pub simulator: Option<String>,
}

/// Why a source could not be opened, with the exit code it maps to.
#[derive(Debug)]
pub struct OpenError {
    pub exit_code: u8,
    pub message: String,
}

impl OpenError {
    pub fn from_source(e: &SourceError) -> Self {
        OpenError {
            exit_code: exit::for_source(e),
            message: exit::with_advice(e, e.advice()),
        }
    }
}

/// What `--source` names.
pub enum SourceSpec<'a> {
    Sim,
    Oracle(&'a str),
}

pub fn parse_spec(spec: &str) -> Result<SourceSpec<'_>, OpenError> {
    if spec == "sim" || spec.starts_with("sim:") || spec.starts_with("sim?") {
        return Ok(SourceSpec::Sim);
    }
    if spec.starts_with("oracle://") {
        return Ok(SourceSpec::Oracle(spec));
    }
    Err(OpenError {
        exit_code: exit::USAGE,
        message: format!(
            "unknown source `{spec}`: use sim, sim:NAME, sim:PATH.toml or \
             oracle://USER@HOST:PORT/SERVICE (see `cdcctl sim scenarios`)"
        ),
    })
}

/// The spec without anything after `?` on an oracle URL (options may carry
/// secrets some day; the user and host are what a log line needs).
fn redacted(spec: &str) -> &str {
    spec.split_once('?').map_or(spec, |(s, _)| s)
}

/// The scenario a `sim[:NAME|:PATH.toml][?options]` spec names, or `None`
/// for anything that is not the simulator.
pub fn sim_scenario(spec: &str) -> Option<&str> {
    let spec = spec.split_once('?').map_or(spec, |(s, _)| s);
    match spec {
        "sim" => Some("demo"),
        _ => spec.strip_prefix("sim:"),
    }
}

/// The one stderr line human-format commands print when they read the
/// simulator, so its answers are never taken for a database's.
pub fn announce_simulator(spec: &str) {
    if let Some(name) = sim_scenario(spec) {
        eprintln!(
            "cdcctl: reading the built-in simulator (scenario {name}), not a database; \
             point at one with --source oracle://USER@HOST:PORT/SERVICE or CDCCTL_SOURCE"
        );
    }
}

fn prompt_password(user: &str) -> Option<Password> {
    if !std::io::stdin().is_terminal() {
        return None;
    }
    rpassword::prompt_password(format!("password for {user}: "))
        .ok()
        .map(Password::new)
}

/// Starts the simulator named by a `sim[:NAME|:PATH.toml]` spec.
pub fn open_sim(spec: &str) -> Result<Sim, OpenError> {
    match Sim::from_source(spec) {
        Some(Ok(sim)) => Ok(sim),
        Some(Err(ScenarioError::UnknownBuiltin { name, .. })) => Err(OpenError {
            exit_code: exit::USAGE,
            message: format!(
                "unknown scenario `{name}` (`cdcctl sim scenarios` lists the built-in ones, \
                 or give the path of a .toml file){}",
                suggest::did_you_mean(&name, BUILTINS.iter().map(|b| b.name))
            ),
        }),
        Some(Err(e)) => Err(OpenError {
            exit_code: exit::USAGE,
            message: e.to_string(),
        }),
        None => Err(OpenError {
            exit_code: exit::USAGE,
            message: format!("`{spec}` is not a simulator source (sim, sim:NAME, sim:PATH.toml)"),
        }),
    }
}

/// Connects to Oracle; `client_lib` points at an Instant Client directory.
pub fn open_oracle(url: &str, client_lib: Option<PathBuf>) -> Result<OracleSource, OpenError> {
    OracleSource::open_url(url, client_lib, prompt_password).map_err(|e| OpenError::from_source(&e))
}

/// Resolves the tables asked for (none asked: none read, since listing
/// every table of a production database is not free) and their key columns.
fn resolve_tables(
    catalog: &mut dyn Catalog,
    specs: &[TableSpec],
) -> Result<(Resolved, BTreeMap<TableName, Vec<String>>), OpenError> {
    if specs.is_empty() {
        return Ok((Resolved::default(), BTreeMap::new()));
    }
    let resolved = tables::resolve(catalog, specs).map_err(|message| OpenError {
        exit_code: exit::USAGE,
        message,
    })?;
    tracing::info!(tables = %resolved.label, matched = resolved.tables.len(), "tables resolved");
    let keys = resolved
        .tables
        .iter()
        .map(|t| (t.name.clone(), t.key_columns()))
        .collect();
    Ok((resolved, keys))
}

pub fn open_redo_source(
    spec: &str,
    client_lib: Option<PathBuf>,
    tables: &[TableSpec],
) -> Result<OpenedSource, OpenError> {
    tracing::info!(source = %redacted(spec), "opening the source");
    match parse_spec(spec)? {
        SourceSpec::Sim => {
            let mut sim = open_sim(spec)?;
            let (resolved, key_columns) = resolve_tables(&mut sim, tables)?;
            let instance = sim.instance().map_err(|e| OpenError::from_source(&e))?;
            let session = sim.session().map_err(|e| OpenError::from_source(&e))?;
            Ok(OpenedSource {
                version: instance.banner.clone(),
                container: session.con_name.clone(),
                user: session.user.clone(),
                db_name: sim.db_name().to_string(),
                pdb_filter: sim.default_pdb(),
                description: spec.to_string(),
                simulator: Some(sim.scenario().name.clone()),
                tables: resolved,
                key_columns,
                source: Box::new(sim),
            })
        }
        SourceSpec::Oracle(url) => {
            let mut source = open_oracle(url, client_lib)?;
            let instance = source.instance().map_err(|e| OpenError::from_source(&e))?;
            let session = source.session().map_err(|e| OpenError::from_source(&e))?;
            let (resolved, key_columns) = resolve_tables(&mut source, tables)?;
            // Mining from CDB$ROOT: changes carry SRC_CON_NAME; elsewhere the
            // connected container (or the database) names them.
            let db_name = if session.con_name.is_empty() || session.con_name == "CDB$ROOT" {
                instance.db_name.clone()
            } else {
                session.con_name.clone()
            };
            Ok(OpenedSource {
                source: Box::new(source),
                db_name,
                pdb_filter: None,
                tables: resolved,
                key_columns,
                version: instance.banner.clone(),
                container: session.con_name.clone(),
                user: session.user.clone(),
                description: url.to_string(),
                simulator: None,
            })
        }
    }
}
