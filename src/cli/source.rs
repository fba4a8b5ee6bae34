//! `--source` as the command line opens it: the library's opener
//! ([`cdcctl::connect`]) with a password prompt on the terminal, the notice
//! that the simulator is not a database, and YashanDB's catalog.

use std::io::IsTerminal;

use crate::cli::log;
use cdcctl::source::oracle::Password;
use cdcctl::source::Catalog;
#[cfg(feature = "yashandb-odbc")]
use cdcctl::source::SourceError;

use crate::cli::exit;
pub use cdcctl::connect::{
    open_sim, parse_spec, point_at_pdb, scenario_error, sim_scenario, OpenError, SourceSpec,
};

/// The one stderr line human-format commands print when they read the
/// simulator, so its answers are never taken for a database's (unless `-q`
/// asked for errors only).
pub fn announce_simulator(command: &str, spec: &str) {
    if super::log::quiet() {
        return;
    }
    if let Some(name) = sim_scenario(spec) {
        log::notice(
            command,
            log::Level::Info,
            &format!(
                "reading the built-in simulator (scenario {name}), not a database; \
                 point at one with --source oracle://USER@HOST:PORT/SERVICE (or dm://USER@HOST:PORT) \
                 or CDCCTL_SOURCE"
            ),
            None,
            &[],
        );
    }
}

/// Asks on the terminal, when there is one.
pub fn prompt_password(user: &str) -> Option<Password> {
    if !std::io::stdin().is_terminal() {
        return None;
    }
    rpassword::prompt_password(format!("password for {user}: "))
        .ok()
        .map(Password::new)
}

/// Connects to Oracle; `client_lib` points at an Instant Client directory.
pub fn open_oracle(
    url: &str,
    client_lib: Option<std::path::PathBuf>,
) -> Result<cdcctl::source::oracle::OracleSource, OpenError> {
    cdcctl::connect::open_oracle(url, client_lib, prompt_password)
}

/// Connects to DM8; the password follows the same rules as Oracle's.
pub fn open_dm(url: &str) -> Result<cdcctl::source::dm::DmSource, OpenError> {
    cdcctl::connect::open_dm(url, prompt_password)
}

/// Opens YashanDB's catalog through ODBC. Without the `yashandb-odbc`
/// build feature, or without YashanDB's driver, the answer is exit 3 with
/// what to install.
pub fn open_yashandb(url: &str) -> Result<Box<dyn Catalog>, OpenError> {
    let parsed = cdcctl::source::yashandb::YashanUrl::parse(url)
        .map_err(|e| cdcctl::connect::usage_error(e.to_string()))?;
    #[cfg(not(feature = "yashandb-odbc"))]
    {
        Err(OpenError {
            exit_code: exit::UNREACHABLE,
            transient: false,
            message: format!(
                "cannot connect to YashanDB at {}:{}\n  advice: {}",
                parsed.host,
                parsed.port,
                cdcctl::source::yashandb::BUILD_ADVICE
            ),
        })
    }
    #[cfg(feature = "yashandb-odbc")]
    {
        // Said as the Oracle and DM8 sources say it, with exit 3.
        let password = Password::from_env()
            .or_else(|| prompt_password(&parsed.user))
            .ok_or_else(|| OpenError::from_source(&SourceError::NoPassword(parsed.user.clone())))?;
        cdcctl::preflight::yashandb_live::open(url, &password)
            .map(|c| Box::new(c) as Box<dyn Catalog>)
            .map_err(|e| match e {
                SourceError::NoClientLibrary(m) => OpenError {
                    exit_code: exit::UNREACHABLE,
                    transient: false,
                    message: format!("{m}\n  advice: {}", cdcctl::source::yashandb::DRIVER_ADVICE),
                },
                other => OpenError::from_source(&other),
            })
    }
}
