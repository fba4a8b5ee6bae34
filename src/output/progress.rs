//! A progress bar on stderr, hidden when stderr is not a terminal.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar of `steps` steps; drawn only on a terminal.
pub fn bar(steps: u64, what: &str) -> ProgressBar {
    let pb = ProgressBar::new(steps);
    if std::io::stderr().is_terminal() {
        pb.set_draw_target(ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {msg}") {
            pb.set_style(style.progress_chars("=> "));
        }
    } else {
        pb.set_draw_target(ProgressDrawTarget::hidden());
    }
    pb.set_prefix(what.to_string());
    pb
}
