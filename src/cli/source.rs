//! Opens the source named by `--source`.

use cdcctl::source::RedoSource;

use crate::cli::exit;

/// A redo source ready for capture, with what the engine needs to know of it.
pub struct OpenedSource {
    pub source: Box<dyn RedoSource>,
    /// `source.db` for rows without SRC_CON_NAME.
    pub db_name: String,
    /// The PDB to filter on when mining from CDB$ROOT, if the source knows it.
    pub pdb_filter: Option<String>,
}

/// Why a source could not be opened, with the exit code it maps to.
pub struct OpenError {
    pub exit_code: u8,
    pub message: String,
}

pub fn open_redo_source(spec: &str) -> Result<OpenedSource, OpenError> {
    Err(OpenError {
        exit_code: exit::USAGE,
        message: format!(
            "unknown source `{spec}`: use sim, sim:NAME, sim:PATH.toml or oracle://USER@HOST:PORT/SERVICE"
        ),
    })
}
