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
/// prints [`snapshot_status_line`] every `--status-every`.
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

/// The status line of a running snapshot: the table being read, its rows
/// (of the statistics' estimate), chunks, and the rate since `rows_before`
/// rows `elapsed_s` seconds ago. `None` once no table is being read.
pub fn snapshot_status_line(
    p: &SnapshotProgress,
    rows_before: u64,
    elapsed_s: f64,
) -> Option<String> {
    let done = p
        .tables
        .iter()
        .filter(|t| t.state != TableState::Reading)
        .count();
    let current = p.tables.iter().find(|t| t.state == TableState::Reading)?;
    let of = current
        .expected_rows
        .map_or_else(String::new, |n| format!(" of about {n}"));
    let rate = if elapsed_s > 0.0 {
        format!(
            ", {:.0} rows/s",
            p.rows().saturating_sub(rows_before) as f64 / elapsed_s
        )
    } else {
        String::new()
    };
    Some(format!(
        "snapshot: table {} of {} ({}), {} rows{of} in {} chunks; {} rows in all{rate}",
        done + 1,
        p.tables.len(),
        current.table,
        current.rows,
        current.chunks,
        p.rows()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::TableName;

    fn name(t: &str) -> TableName {
        TableName {
            owner: "APP".into(),
            table: t.into(),
        }
    }

    #[test]
    fn snapshot_status_line_names_the_table_read_its_share_and_the_rate() {
        let mut p = SnapshotProgress::new(vec![(name("A"), Some(10)), (name("B"), Some(5000))]);
        p.tables[0].rows = 10;
        p.tables[0].state = TableState::Done;
        p.tables[1].rows = 1000;
        p.tables[1].chunks = 2;
        assert_eq!(
            snapshot_status_line(&p, 10, 4.0).as_deref(),
            Some(
                "snapshot: table 2 of 2 (APP.B), 1000 rows of about 5000 in 2 chunks; \
                 1010 rows in all, 250 rows/s"
            )
        );
        p.tables[1].state = TableState::Stopped {
            message: "dropped".into(),
        };
        assert_eq!(snapshot_status_line(&p, 0, 1.0), None);
    }
}
