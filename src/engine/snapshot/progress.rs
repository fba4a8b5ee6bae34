//! How far the initial snapshot got, per table and in all: what the
//! checkpoint stores, the status shows and a restart resumes from.

use serde::{Deserialize, Serialize};

use crate::engine::port::TableName;
use crate::engine::row::Scn;

/// Where one table's snapshot stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TableState {
    /// Chunks remain to be read.
    Reading,
    Done,
    /// Stopped for good (the table was dropped); the message says why.
    Stopped {
        message: String,
    },
}

/// One table's snapshot progress, as the checkpoint stores it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableProgress {
    pub table: TableName,
    /// Key of the last row emitted: the next chunk starts after it.
    pub after_key: Option<Vec<String>>,
    pub chunks: u64,
    pub rows: u64,
    /// Rows the dictionary statistics expect (`NUM_ROWS`), for progress.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_rows: Option<u64>,
    pub state: TableState,
    /// For a table read by ROWID, the data object ids of its segments at
    /// the last chunk: a ROWID read past is meaningless once its segment
    /// is replaced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segments: Option<Vec<u64>>,
    /// The read starts over from the table's first row: a truncate event
    /// goes before its next chunk, so a consumer drops the rows read before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub starts_over: bool,
    /// Deletes of its keys not read yet committed after this SCN go
    /// through instead of being left to the read: a run a crash stopped
    /// may have sent part of a chunk read at this SCN, which could not be
    /// read again there, so a consumer may hold rows of it deleted since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletes_since: Option<Scn>,
}

/// The whole snapshot's progress, as the checkpoint stores it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotProgress {
    pub tables: Vec<TableProgress>,
    /// Chunks emitted so far, over all tables: numbers each chunk's rows
    /// (`source.snapshot_chunk`), so positions only grow across restarts.
    pub chunks: u64,
    /// SCN of the last chunk read: the next one is read at or above it.
    pub last_scn: Scn,
    /// The SCN the first chunk not emitted yet is read at, stored before
    /// its rows are sent. A restart reads it again there, so rows a crash
    /// cut short (in a Kafka transaction it aborted, which a consumer may
    /// still see) come again with the same ids, rather than from a newer
    /// read that leaves out the rows deleted in between.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_at: Option<Scn>,
}

impl SnapshotProgress {
    /// A snapshot of `tables`, in that order, nothing read yet.
    pub fn new(tables: Vec<(TableName, Option<u64>)>) -> Self {
        Self {
            tables: tables
                .into_iter()
                .map(|(table, expected_rows)| TableProgress {
                    table,
                    after_key: None,
                    chunks: 0,
                    rows: 0,
                    expected_rows,
                    state: TableState::Reading,
                    segments: None,
                    starts_over: false,
                    deletes_since: None,
                })
                .collect(),
            chunks: 0,
            last_scn: 0,
            read_at: None,
        }
    }

    pub fn finished(&self) -> bool {
        self.current().is_none()
    }

    /// Index of the table being read.
    pub(super) fn current(&self) -> Option<usize> {
        self.tables
            .iter()
            .position(|t| t.state == TableState::Reading)
    }

    pub fn rows(&self) -> u64 {
        self.tables.iter().map(|t| t.rows).sum()
    }

    /// One line for an operator: the table being read and how far, then
    /// the whole snapshot's count (`status` and `tail --checkpoint`).
    pub fn summary(&self) -> String {
        let total = self.tables.len();
        let done = self
            .tables
            .iter()
            .filter(|t| t.state != TableState::Reading)
            .count();
        let all = format!("{} rows, {} chunks in all", self.rows(), self.chunks);
        let stopped: Vec<String> = self
            .tables
            .iter()
            .filter(|t| matches!(t.state, TableState::Stopped { .. }))
            .map(|t| t.table.to_string())
            .collect();
        let stopped = if stopped.is_empty() {
            String::new()
        } else {
            format!("; stopped: {}", stopped.join(", "))
        };
        let Some(i) = self.current() else {
            return format!("finished: {total} table(s), {all}{stopped}");
        };
        let t = &self.tables[i];
        let of = match t.expected_rows {
            Some(e) if e > 0 => {
                format!(" of ~{e} ({}%)", (t.rows.saturating_mul(100) / e).min(100))
            }
            _ => String::new(),
        };
        format!(
            "table {} of {total} ({done} done), {}: {} rows{of}, chunk {}; {all}{stopped}",
            i + 1,
            t.table,
            t.rows,
            t.chunks
        )
    }

    /// The status line of a running snapshot: the table being read, its rows
    /// (of the statistics' estimate), chunks, and the rate since `rows_before`
    /// rows `elapsed_s` seconds ago. `None` once no table is being read.
    pub fn status_line(&self, rows_before: u64, elapsed_s: f64) -> Option<String> {
        let p = self;
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
}

/// A snapshot part-way: APP.CUSTOMERS read (2,000 rows, one chunk),
/// APP.ORDERS at 12,000 of ~50,000 rows in two chunks, APP.AUDIT_TMP
/// waiting. For the tests that show progress.
#[cfg(test)]
pub(crate) fn sample_progress() -> SnapshotProgress {
    let name = |t: &str| TableName {
        owner: "APP".into(),
        table: t.into(),
    };
    let mut p = SnapshotProgress::new(vec![
        (name("CUSTOMERS"), Some(2_000)),
        (name("ORDERS"), Some(50_000)),
        (name("AUDIT_TMP"), None),
    ]);
    p.tables[0].rows = 2_000;
    p.tables[0].chunks = 1;
    p.tables[0].state = TableState::Done;
    p.tables[1].rows = 12_000;
    p.tables[1].chunks = 2;
    p.chunks = 3;
    p
}
