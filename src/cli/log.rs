//! Log lines on stderr through `tracing`: time-stamped, filtered by `-v`,
//! `-q`, or `CDCCTL_LOG` / `RUST_LOG` directives (`cdcctl=debug,warn`).

use std::sync::atomic::{AtomicBool, Ordering};

use tracing_subscriber::EnvFilter;

/// `-q`: notices that are not errors (the simulator line) stay unsaid.
static QUIET: AtomicBool = AtomicBool::new(false);

/// Whether `-q` asked for errors only.
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// Installs the stderr subscriber; an environment filter wins over the flags.
pub fn init(verbose: u8, quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
    let level = match (quiet, verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, 2) => "debug",
        _ => "trace",
    };
    let from_env = ["CDCCTL_LOG", "RUST_LOG"]
        .iter()
        .find_map(|var| std::env::var(var).ok().filter(|v| !v.trim().is_empty()))
        .and_then(|directives| EnvFilter::try_new(directives).ok());
    let filter = from_env.unwrap_or_else(|| EnvFilter::new(level));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_target(false)
        .try_init();
}
