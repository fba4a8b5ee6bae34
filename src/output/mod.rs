//! Renderers shared by commands: tables (comfy-table), JSON, JUnit, and
//! progress bars (indicatif) on stderr.

pub mod human;
pub mod junit;
pub mod partitions;
pub mod progress;

/// The output formats of report commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Junit,
}

/// Width tables are laid out to when stdout is not a terminal (files, CI,
/// tests), so output is stable.
pub const DEFAULT_WIDTH: u16 = 110;

/// The terminal's width, or [`DEFAULT_WIDTH`] when stdout is not a terminal
/// or reports a width too small to lay a table out in.
pub fn stdout_width() -> u16 {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return DEFAULT_WIDTH;
    }
    match crossterm::terminal::size() {
        Ok((w, _)) if w >= 60 => w,
        _ => DEFAULT_WIDTH,
    }
}
