//! Opens the source named by `--source`: the built-in simulator or a real
//! Oracle database. Passwords never come from argv: `CDCCTL_PASSWORD`, a
//! prompt on the terminal, or an Oracle wallet.

use std::io::IsTerminal;
use std::path::PathBuf;

use cdcctl::source::oracle::{OracleSource, Password};
use cdcctl::source::sim::Sim;
use cdcctl::source::{Catalog, RedoSource, SourceError};

use crate::cli::exit;

/// A redo source ready for capture, with what the engine needs to know of it.
pub struct OpenedSource {
    pub source: Box<dyn RedoSource>,
    /// `source.db` for rows without SRC_CON_NAME.
    pub db_name: String,
    /// The PDB to filter on when mining from CDB$ROOT, if the source knows it.
    pub pdb_filter: Option<String>,
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
        let exit_code = match e {
            SourceError::Unreachable(_)
            | SourceError::Authentication(_)
            | SourceError::NoClientLibrary(_) => exit::UNREACHABLE,
            SourceError::Oracle { .. } => exit::UNREACHABLE,
            _ => exit::USAGE,
        };
        let mut message = e.to_string();
        if let Some(a) = e.advice() {
            message.push_str("\n  advice: ");
            message.push_str(a);
        }
        OpenError { exit_code, message }
    }
}

/// What `--source` names.
pub enum SourceSpec<'a> {
    Sim(&'a str),
    Oracle(&'a str),
}

pub fn parse_spec(spec: &str) -> Result<SourceSpec<'_>, OpenError> {
    if spec == "sim" || spec.starts_with("sim:") || spec.starts_with("sim?") {
        return Ok(SourceSpec::Sim(spec));
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

pub fn open_redo_source(
    spec: &str,
    client_lib: Option<PathBuf>,
) -> Result<OpenedSource, OpenError> {
    match parse_spec(spec)? {
        SourceSpec::Sim(_) => {
            let sim = open_sim(spec)?;
            Ok(OpenedSource {
                db_name: sim.db_name().to_string(),
                pdb_filter: sim.default_pdb(),
                description: spec.to_string(),
                source: Box::new(sim),
            })
        }
        SourceSpec::Oracle(url) => {
            let mut source = open_oracle(url, client_lib)?;
            let instance = source.instance().map_err(|e| OpenError::from_source(&e))?;
            let session = source.session().map_err(|e| OpenError::from_source(&e))?;
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
                description: url.to_string(),
            })
        }
    }
}
