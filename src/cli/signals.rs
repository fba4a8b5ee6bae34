//! SIGINT and SIGTERM as a request to stop cleanly, for `run` and plain
//! `tail` alike.

use std::io;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

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
