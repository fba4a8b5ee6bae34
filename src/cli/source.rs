//! Opens the source named by `--source`: the built-in simulator or a real
//! Oracle database. Passwords never come from argv: `CDCCTL_PASSWORD`, a
//! prompt on the terminal, or an Oracle wallet.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;

use cdcctl::source::oracle::{OracleSource, Password};
use cdcctl::source::sim::Sim;
use cdcctl::source::{Catalog, RedoSource, SourceError, TableName, TablePattern};

use crate::cli::exit;

/// A redo source ready for capture, with what the engine needs to know of it.
pub struct OpenedSource {
    pub source: Box<dyn RedoSource>,
    /// `source.db` for rows without SRC_CON_NAME.
    pub db_name: String,
    /// The PDB to filter on when mining from CDB$ROOT, if the source knows it.
    pub pdb_filter: Option<String>,
    /// Key columns of the tables in scope, for the engine's dictionary checks.
    pub key_columns: BTreeMap<TableName, Vec<String>>,
    /// LOB and XMLType columns of the tables in scope: the redo of an update
    /// or delete does not carry them.
    pub lob_columns: BTreeMap<TableName, Vec<String>>,
    /// Banner version, container and user, for headers.
    pub version: String,
    pub container: String,
    pub user: String,
    /// One line for headers: "sim:demo", "oracle://c##cdcctl@db:1521/ORCLCDB".
    pub description: String,
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

/// Per table: key columns and LOB columns.
type TableColumns = (
    BTreeMap<TableName, Vec<String>>,
    BTreeMap<TableName, Vec<String>>,
);

/// Key and LOB columns of the tables matching `patterns` (none asked: none
/// read, since listing every table of a production database is not free).
fn key_columns(
    catalog: &mut dyn Catalog,
    patterns: &[TablePattern],
) -> Result<TableColumns, OpenError> {
    if patterns.is_empty() {
        return Ok(Default::default());
    }
    let tables = catalog
        .tables(patterns)
        .map_err(|e| OpenError::from_source(&e))?;
    // A pattern that matches nothing would mine forever and show nothing:
    // say so now, with what exists.
    if let Some(missing) = patterns
        .iter()
        .find(|p| !tables.iter().any(|t| p.matches(&t.name)))
    {
        let known: Vec<String> = catalog
            .tables(&[])
            .map(|all| {
                all.into_iter()
                    .map(|t| t.name.to_string())
                    .take(12)
                    .collect()
            })
            .unwrap_or_default();
        let hint = if known.is_empty() {
            String::new()
        } else {
            format!(" (tables the connected user can see: {})", known.join(", "))
        };
        return Err(OpenError {
            exit_code: exit::USAGE,
            message: format!(
                "no table matches `{missing}`{hint}; names are upper case unless written in double quotes"
            ),
        });
    }
    let lobs = tables
        .iter()
        .map(|t| {
            let lobs = t
                .columns
                .iter()
                .filter(|c| {
                    matches!(
                        c.data_type.to_ascii_uppercase().as_str(),
                        "CLOB" | "NCLOB" | "BLOB" | "XMLTYPE"
                    )
                })
                .map(|c| c.name.clone())
                .collect::<Vec<_>>();
            (t.name.clone(), lobs)
        })
        .filter(|(_, lobs)| !lobs.is_empty())
        .collect();
    let keys = tables
        .into_iter()
        .map(|t| {
            let key = t.key_columns();
            (t.name, key)
        })
        .collect();
    Ok((keys, lobs))
}

pub fn open_redo_source(
    spec: &str,
    client_lib: Option<PathBuf>,
    tables: &[TablePattern],
) -> Result<OpenedSource, OpenError> {
    match parse_spec(spec)? {
        SourceSpec::Sim => {
            let mut sim = open_sim(spec)?;
            let (key_columns, lob_columns) = key_columns(&mut sim, tables)?;
            let instance = sim.instance().map_err(|e| OpenError::from_source(&e))?;
            let session = sim.session().map_err(|e| OpenError::from_source(&e))?;
            Ok(OpenedSource {
                version: instance.banner.clone(),
                container: session.con_name.clone(),
                user: session.user.clone(),
                db_name: sim.db_name().to_string(),
                pdb_filter: sim.default_pdb(),
                description: spec.to_string(),
                key_columns,
                lob_columns,
                source: Box::new(sim),
            })
        }
        SourceSpec::Oracle(url) => {
            let mut source = open_oracle(url, client_lib)?;
            let instance = source.instance().map_err(|e| OpenError::from_source(&e))?;
            let session = source.session().map_err(|e| OpenError::from_source(&e))?;
            let (key_columns, lob_columns) = key_columns(&mut source, tables)?;
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
                key_columns,
                lob_columns,
                version: instance.banner.clone(),
                container: session.con_name.clone(),
                user: session.user.clone(),
                description: url.to_string(),
            })
        }
    }
}
