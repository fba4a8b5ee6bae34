//! Progress bars on stderr, hidden when stderr is not a terminal: a
//! command's steps, and a running snapshot's tables.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::engine::snapshot::{SnapshotProgress, TableState};

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

/// The progress of a running snapshot on stderr: one bar per table (rows,
/// rows/s, ETA, chunks) on a terminal; elsewhere nothing here, and `run`
/// prints [`SnapshotProgress::status_line`] every `--status-every`.
pub struct SnapshotBars {
    multi: Option<indicatif::MultiProgress>,
    bars: Vec<ProgressBar>,
}

impl SnapshotBars {
    /// Bars for the tables of `progress`, when stderr is a terminal.
    pub fn new(progress: &SnapshotProgress) -> Self {
        if !std::io::stderr().is_terminal() {
            return Self {
                multi: None,
                bars: Vec::new(),
            };
        }
        let multi = indicatif::MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
        let estimated = ProgressStyle::with_template(
            "{prefix:30} [{bar:25}] {pos}/{len} rows {per_sec} ETA {eta} {msg}",
        )
        .map(|s| s.progress_chars("=> "));
        // Without statistics there is no end to draw a bar or an ETA to.
        let open = ProgressStyle::with_template("{prefix:30} {pos} rows {per_sec} {msg}");
        let bars = progress
            .tables
            .iter()
            .map(|t| {
                let pb = multi.add(ProgressBar::new(t.expected_rows.unwrap_or(0)));
                let style = if t.expected_rows.is_some() {
                    &estimated
                } else {
                    &open
                };
                if let Ok(s) = style {
                    pb.set_style(s.clone());
                }
                pb.set_prefix(t.table.to_string());
                pb
            })
            .collect();
        let bars = Self {
            multi: Some(multi),
            bars,
        };
        bars.update(progress);
        bars
    }

    /// Moves the bars to `progress`.
    pub fn update(&self, progress: &SnapshotProgress) {
        for (pb, t) in self.bars.iter().zip(&progress.tables) {
            // Statistics are an estimate: a table may hold more rows.
            if pb.length().is_some_and(|len| len < t.rows) {
                pb.set_length(t.rows);
            }
            pb.set_position(t.rows);
            match &t.state {
                TableState::Reading => pb.set_message(format!("chunk {}", t.chunks)),
                TableState::Done if !pb.is_finished() => {
                    pb.set_length(t.rows);
                    pb.finish_with_message(format!("done, {} chunks", t.chunks));
                }
                TableState::Stopped { .. } if !pb.is_finished() => {
                    pb.abandon_with_message("stopped");
                }
                _ => {}
            }
        }
    }

    /// Whether bars are drawn (stderr is a terminal).
    pub fn drawn(&self) -> bool {
        self.multi.is_some()
    }

    /// Prints a line above the bars (or on stderr without them).
    pub fn println(&self, line: &str) {
        match &self.multi {
            Some(m) if m.println(line).is_ok() => {}
            _ => eprintln!("{line}"),
        }
    }
}
