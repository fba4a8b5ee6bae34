//! SIGINT and SIGTERM as a request to stop cleanly, for `run` and plain
//! `tail` alike, and SIGHUP as `run`'s request to reopen its output.
//!
//! `run` has its handlers installed at the process's first instruction
//! ([`install_for_run`]): a daemon that logrotate or systemd signals while
//! it starts (opening the source can take seconds) must not die of it with
//! its lock file already naming it.

use std::io;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use cdcctl::daemon::Signals;

/// A flag SIGINT and SIGTERM raise: the command finishes what it holds
/// (`run` its batch and checkpoint, `tail --plain` its output) and says
/// where it stopped. A second signal ends the process at once (exit 130)
/// for a stop that hangs; `run`'s checkpoint on disk is consistent at every
/// instant.
pub fn stop_on_signals() -> io::Result<Arc<AtomicBool>> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [SIGINT, SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(sig, 130, Arc::clone(&stop))?;
        signal_hook::flag::register(sig, Arc::clone(&stop))?;
    }
    Ok(stop)
}

/// `run`'s flags, installed once.
static RUN: OnceLock<Result<Signals, String>> = OnceLock::new();

fn install() -> Result<Signals, String> {
    let stop = stop_on_signals().map_err(|e| e.to_string())?;
    let hangup = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGHUP, Arc::clone(&hangup))
        .map_err(|e| e.to_string())?;
    Ok(Signals { stop, hangup })
}

/// Installs `run`'s handlers now; call it before anything else.
pub fn install_for_run() {
    RUN.get_or_init(install);
}

/// `run`'s flags (installed now if [`install_for_run`] was not called).
pub fn for_run() -> Result<Signals, String> {
    RUN.get_or_init(install).clone()
}
