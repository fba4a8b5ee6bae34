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

/// `n` and the noun for it: `count(1, "SCN", "SCNs")` is "1 SCN", any
/// other count takes the plural.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The terminal's width; when stdout is not a terminal (a pager, a pipe)
/// the width `COLUMNS` gives; else [`DEFAULT_WIDTH`]. A width too small to
/// lay a table out in counts as none.
pub fn stdout_width() -> u16 {
    use std::io::IsTerminal;
    let terminal = if std::io::stdout().is_terminal() {
        crossterm::terminal::size().ok().map(|(w, _)| w)
    } else {
        None
    };
    width_from(terminal, std::env::var("COLUMNS").ok().as_deref())
}

/// The width to lay tables out in from the terminal's own width and the
/// `COLUMNS` variable, in that order of trust.
fn width_from(terminal: Option<u16>, columns: Option<&str>) -> u16 {
    let columns = columns.and_then(|c| c.trim().parse::<u16>().ok());
    [terminal, columns]
        .into_iter()
        .flatten()
        .find(|w| *w >= 60)
        .unwrap_or(DEFAULT_WIDTH)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 36: `partitions` piped to a pager on a 140-column terminal
    /// wrapped the high value at 27 characters, ignoring `COLUMNS`.
    #[test]
    fn tables_take_columns_when_stdout_is_no_terminal_issue36() {
        assert_eq!(width_from(None, Some("140")), 140);
        assert_eq!(width_from(Some(120), Some("140")), 120);
        assert_eq!(width_from(None, None), DEFAULT_WIDTH);
        assert_eq!(width_from(None, Some("wide")), DEFAULT_WIDTH);
        assert_eq!(width_from(Some(20), Some("30")), DEFAULT_WIDTH);
    }

    #[test]
    fn a_count_of_one_takes_the_singular() {
        assert_eq!(count(1, "SCN", "SCNs"), "1 SCN");
        assert_eq!(count(0, "change", "changes"), "0 changes");
        assert_eq!(count(2, "change", "changes"), "2 changes");
    }
}
