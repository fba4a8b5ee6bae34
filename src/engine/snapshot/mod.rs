//! The initial snapshot: the rows already in the captured tables, read in
//! key-ordered chunks and emitted as `op: "r"` events between the windows
//! of the running change stream, so the stream needs no second pass.
//!
//! The method is the watermark method of DBLog and Flink CDC's incremental
//! snapshot, in the form an `AS OF SCN` read allows. Each chunk is read at
//! the newest SCN (so undo need only last the read, however far the stream
//! lags) and held until the stream has emitted every commit up to that SCN;
//! the stream mines no further meanwhile, and the chunk's rows follow those
//! commits. Changes of keys whose chunk is not emitted yet are inside a read
//! (this one, or a later one at a newer SCN), so the stream leaves them out
//! ([`Snapshotter::admit`]). Per key, the output is one `r` row, the row as
//! of its chunk's SCN, then exactly the changes committed after it: reduced
//! to the last state per key it is the table.
//!
//! Faults of a long snapshot are survived at the chunk: ORA-01555 (undo
//! overwritten) and ORA-08103 (a segment truncated, moved, exchanged or
//! dropped) re-read the chunk at a fresher SCN, with half as many rows when
//! ORA-01555 repeats; a dropped table (ORA-00942) stops that table alone; a
//! dropped connection is handed back to the caller to reconnect; a table
//! without a key, read by ROWID, starts over when a segment it had passed
//! is replaced (`segments`). Progress per table is part of the checkpoint,
//! so a restart resumes at the chunk; a chunk read and not yet emitted has
//! its SCN in the checkpoint before its rows are sent, and is read there
//! again (`SnapshotProgress::read_at`).

use std::collections::{BTreeMap, VecDeque};
use std::str::FromStr;

mod gate;
mod keyorder;
mod order;
mod progress;
mod read_forms;
mod resume_key;
mod segments;

use super::emit::SinkError;
use super::event::{
    CapturedEvent, ChangeEvent, Field, Image, Op, SnapshotMark, SourcePosition, ValueForms,
};
use super::port::{Dialect, RedoSource, SnapshotChunk, SourceError, TableName};
use super::row::Scn;
pub use gate::SnapshotKey;
pub use keyorder::KeyKind;
pub use order::{ReadAnswer, ReadOrder};
#[cfg(test)]
pub(crate) use progress::sample_progress;
pub use progress::{SnapshotProgress, TableProgress, TableState};
pub use read_forms::{in_stream_form, ReadForm};

/// When `run` takes a snapshot (the names Debezium and Flink CDC use).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnapshotMode {
    /// Snapshot when there is no checkpoint, then stream.
    Initial,
    /// Never: stream only.
    Never,
    /// Snapshot when there is no checkpoint, then stop.
    InitialOnly,
    /// As `Initial`, and snapshot again when the checkpoint's restart SCN
    /// is no longer in the available redo.
    WhenNeeded,
}

impl FromStr for SnapshotMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "initial" => Ok(Self::Initial),
            "never" => Ok(Self::Never),
            "initial-only" | "initial_only" => Ok(Self::InitialOnly),
            "when-needed" | "when_needed" => Ok(Self::WhenNeeded),
            other => Err(format!(
                "`{other}` is not a snapshot mode (allowed: initial, never, initial-only, when-needed)"
            )),
        }
    }
}

/// How read rows are marked in `source.snapshot`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SnapshotMarks {
    /// Debezium's initial-snapshot positions: `first`,
    /// `first_in_data_collection`, `true`, `last_in_data_collection`,
    /// `last`. Finding a table's end costs a one-row read after each full
    /// chunk.
    #[default]
    Positions,
    /// `incremental` on every row, as Debezium marks the rows of a chunked
    /// snapshot read beside the stream; no position is said.
    Incremental,
}

impl FromStr for SnapshotMarks {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "positions" => Ok(Self::Positions),
            "incremental" => Ok(Self::Incremental),
            other => Err(format!(
                "`{other}` is not a way to mark snapshot rows (allowed: positions, incremental)"
            )),
        }
    }
}

/// Where a read row stands, for [`SnapshotMarks::Positions`].
#[derive(Debug, Clone, Copy)]
struct RowPlace {
    first_of_snapshot: bool,
    first_of_table: bool,
    last_of_table: bool,
    last_of_snapshot: bool,
}

impl RowPlace {
    /// The mark of the place: `last` first, since consumers wait on it to
    /// know the snapshot ended; then `first`; then a table's end before its
    /// start.
    fn mark(self, marks: SnapshotMarks) -> SnapshotMark {
        match marks {
            SnapshotMarks::Incremental => SnapshotMark::Incremental,
            SnapshotMarks::Positions if self.last_of_snapshot => SnapshotMark::Last,
            SnapshotMarks::Positions if self.first_of_snapshot => SnapshotMark::First,
            SnapshotMarks::Positions if self.last_of_table => SnapshotMark::LastInTable,
            SnapshotMarks::Positions if self.first_of_table => SnapshotMark::FirstInTable,
            SnapshotMarks::Positions => SnapshotMark::Row,
        }
    }
}

impl SnapshotProgress {
    /// Takes into account rows of a chunk an interrupted run wrote after
    /// its last checkpoint: `row` is the output's last event when it is a
    /// snapshot row (see `sink::last_snapshot_row`), written in `forms`;
    /// `key_columns` the key of its table, `kinds` how each key column is
    /// ordered. The snapshot then resumes after that row (a table without
    /// a key starts over), and no chunk is read below its SCN. Says how
    /// when the row was past the checkpoint.
    pub fn account_for_output_tail(
        &mut self,
        row: &serde_json::Value,
        key_columns: &[String],
        kinds: &[KeyKind],
        forms: ValueForms,
    ) -> Result<Option<OutputTail>, SnapshotError> {
        let source = &row["source"];
        let chunk = source["snapshot_chunk"].as_u64().unwrap_or(0);
        if chunk <= self.chunks {
            // The checkpoint already counts that chunk.
            return Ok(None);
        }
        let name = TableName {
            owner: source["schema"].as_str().unwrap_or_default().to_string(),
            table: source["table"].as_str().unwrap_or_default().to_string(),
        };
        let scn = source["scn"]
            .as_str()
            .and_then(|s| s.parse::<Scn>().ok())
            .unwrap_or(0);
        let Some(i) = self.tables.iter().position(|t| t.table == name) else {
            return Err(SnapshotError::Resume(format!(
                "the output ends with a snapshot row of {name}, which this snapshot does not read"
            )));
        };
        self.chunks = chunk;
        self.last_scn = self.last_scn.max(scn);
        // The output itself says how much of the chunk was written: the
        // read goes on from there at the newest SCN, not again where it was.
        self.read_at = None;
        if let Some(ended) = self.end_at_marked_row(i, source["snapshot"].as_str()) {
            return Ok(Some(ended));
        }
        let t = &mut self.tables[i];
        // The row written is the first row emitted, whatever else the
        // cut chunk held: no later row may be marked `first` again.
        t.rows += 1;
        if key_columns.is_empty() {
            // No key to resume after: the read starts over, and its
            // truncate event drops the part of the chunk written.
            t.after_key = None;
            t.starts_over = true;
            t.state = TableState::Reading;
            return Ok(Some(OutputTail::StartsOver(name)));
        }
        let key = tail_key(row, key_columns, kinds, forms).map_err(|why| {
            SnapshotError::Resume(format!(
                "the output ends inside a snapshot chunk of {name}, and its last row's key {why}; \
                 remove the output and the checkpoint to snapshot again, or rerun with the value \
                 forms the output was written in"
            ))
        })?;
        t.after_key = Some(key.clone());
        t.chunks += 1;
        t.state = TableState::Reading;
        Ok(Some(OutputTail::After(name, key)))
    }

    /// A written row marked as its table's last (`mark`) ended table `i`
    /// in the run that wrote it; the snapshot's `last` also says the
    /// tables still to read after it were empty at its SCN. Reading them
    /// again at a later SCN would emit those marks a second time.
    fn end_at_marked_row(&mut self, i: usize, mark: Option<&str>) -> Option<OutputTail> {
        let ends_snapshot = match mark {
            Some("last") => true,
            Some("last_in_data_collection") => false,
            _ => return None,
        };
        let t = &mut self.tables[i];
        t.state = TableState::Done;
        t.chunks += 1;
        t.rows += 1;
        t.starts_over = false;
        let name = t.table.clone();
        if ends_snapshot {
            for later in &mut self.tables[i + 1..] {
                if later.state == TableState::Reading {
                    later.state = TableState::Done;
                }
            }
        }
        Some(OutputTail::Ended(name))
    }
}

/// How a snapshot goes on after a chunk the output holds part of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputTail {
    /// The table's read goes on after this key of its last row written.
    After(TableName, Vec<String>),
    /// The table has no key: its read starts over, after a truncate event.
    StartsOver(TableName),
    /// The row written was the table's last (and maybe the snapshot's):
    /// its read is done.
    Ended(TableName),
}

/// The source's text of the key of a written snapshot row.
fn tail_key(
    row: &serde_json::Value,
    key_columns: &[String],
    kinds: &[KeyKind],
    forms: ValueForms,
) -> Result<Vec<String>, String> {
    key_columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let kind = kinds.get(i).copied().unwrap_or(KeyKind::Text);
            resume_key::source_text(forms, kind, &row["after"][c])
                .map_err(|why| format!("{c} {why}"))
        })
        .collect()
}

/// Why the snapshot cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("snapshot of {table}: {source}")]
    Source {
        table: TableName,
        #[source]
        source: SourceError,
    },
    #[error("snapshot: {0}")]
    Resume(String),
    #[error("snapshot: the output refused a row: {0}")]
    Sink(SinkError),
}

/// Something the operator should hear about; the snapshot went on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotNotice {
    /// ORA-01555 (DM8: -9801, flashback version expired): the chunk is
    /// read again at a fresher SCN.
    SnapshotTooOld {
        table: TableName,
        chunk: u64,
        scn: Scn,
        next_rows: usize,
        /// The database's code and its meaning, as the notice shows them.
        error: String,
    },
    /// ORA-08103: the segment changed; read again at a fresher SCN.
    ObjectNoLongerExists {
        table: TableName,
        chunk: u64,
        scn: Scn,
    },
    /// ORA-01466: DDL after the read's SCN; read again after it.
    DefinitionChanged {
        table: TableName,
        chunk: u64,
        scn: Scn,
    },
    /// ORA-00942: the table is gone; the others go on.
    TableDropped { table: TableName, error: String },
    /// The connection dropped during a read; reconnecting.
    ConnectionLost { table: TableName, error: String },
    /// A table's last chunk was read.
    TableDone { table: TableName, rows: u64 },
    /// Segments a read by ROWID had reached were replaced: it starts over.
    SegmentsReplaced {
        table: TableName,
        /// Their data object ids before.
        replaced: Vec<u64>,
    },
}

impl SnapshotNotice {
    /// For a chunk read that failed and is tried again (or a table given
    /// up), the table and the database's code in Oracle's terms, which
    /// DM8's answers are mapped to: what `cdcctl_snapshot_retries_total`
    /// counts.
    pub fn retry(&self) -> Option<(&TableName, &'static str)> {
        match self {
            Self::SnapshotTooOld { table, .. } => Some((table, "ORA-01555")),
            Self::ObjectNoLongerExists { table, .. } => Some((table, "ORA-08103")),
            Self::DefinitionChanged { table, .. } => Some((table, "ORA-01466")),
            Self::TableDropped { table, .. } => Some((table, "ORA-00942")),
            Self::ConnectionLost { table, .. } => Some((table, "connection")),
            Self::SegmentsReplaced { table, .. } => Some((table, "segment_replaced")),
            Self::TableDone { .. } => None,
        }
    }

    pub fn message(&self) -> String {
        match self {
            Self::SnapshotTooOld {
                table,
                chunk,
                scn,
                next_rows,
                error,
            } => format!(
                "{error} reading chunk {chunk} of {table} AS OF SCN {scn}: \
                 undo was overwritten; reading the chunk again at a fresher SCN, {next_rows} rows \
                 at most"
            ),
            Self::ObjectNoLongerExists { table, chunk, scn } => format!(
                "ORA-08103 (object no longer exists) reading chunk {chunk} of {table} AS OF SCN \
                 {scn}: a partition was truncated, moved, exchanged or dropped; reading the chunk \
                 again at an SCN after it"
            ),
            Self::DefinitionChanged { table, chunk, scn } => format!(
                "ORA-01466 (table definition has changed) reading chunk {chunk} of {table} AS OF \
                 SCN {scn}: DDL (TRUNCATE, MOVE, a constraint) ran after that SCN; reading the \
                 chunk again at an SCN after it"
            ),
            Self::TableDropped { table, error } => format!(
                "{table} can no longer be read ({error}): it was dropped during the snapshot; its \
                 snapshot stops here, the other tables go on"
            ),
            Self::ConnectionLost { table, error } => format!(
                "connection lost reading a chunk of {table} ({error}); reconnecting to read the \
                 chunk again"
            ),
            Self::TableDone { table, rows } => {
                format!("{table}: snapshot complete, {rows} rows")
            }
            Self::SegmentsReplaced { table, replaced } => {
                let ids: Vec<String> = replaced.iter().map(u64::to_string).collect();
                format!(
                    "{table} has no key and is read by ROWID, and segments the read had passed \
                     were replaced (data object id {}: ALTER TABLE MOVE, SHRINK SPACE, TRUNCATE \
                     or partition maintenance), so the rows read have new ROWIDs; its read starts \
                     over, after a truncate event that drops the rows read so far from a consumer",
                    ids.join(", ")
                )
            }
        }
    }
}

/// What one step of the snapshot did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A chunk was emitted.
    Chunk { table: TableName, rows: usize },
    /// The chunk must be read again at a fresher SCN (poll the stream first).
    Retry,
    /// The connection dropped: reconnect, then step again.
    Reconnect,
    /// A table stopped; step again for the next.
    TableStopped,
    /// Every table is done or stopped.
    Finished,
}

/// Fixed parts of the events a snapshot emits.
#[derive(Debug, Clone)]
pub struct SnapshotConfig {
    /// Rows per chunk (before ORA-01555 makes it smaller).
    pub chunk_rows: usize,
    /// `source.name`.
    pub server_name: String,
    /// `source.db`: the PDB the tables are read in, else the database.
    pub db: String,
    /// RAW, LONG RAW and BLOB columns per table: a read returns their
    /// bytes as hex, written as bytes like the stream writes them.
    pub binary_columns: BTreeMap<TableName, Vec<String>>,
    /// `source.connector`: the source's database family.
    pub dialect: Dialect,
    /// The key each keyed table is read in the order of: what the stream
    /// gate places changes by. Tables read by ROWID are absent.
    pub keys: BTreeMap<TableName, SnapshotKey>,
    /// How read rows are marked.
    pub marks: SnapshotMarks,
}

/// A chunk read and not emitted yet: its rows wait until the stream has
/// emitted every commit up to the SCN it was read at. Its events are made
/// when it is emitted, after the chunks before it.
#[derive(Debug)]
struct Held {
    table: usize,
    scn: Scn,
    /// The database time at `scn`.
    ts_ms: i64,
    chunk: SnapshotChunk,
    exhausted: bool,
    last_key: Option<Vec<String>>,
    /// Tables after this one found empty at `scn`: done with the chunk.
    empty_after: Vec<usize>,
}

/// Where a chunk stands in its table and the snapshot.
#[derive(Clone, Copy)]
struct ChunkPlace<'a> {
    /// The chunk ends its table.
    exhausted: bool,
    /// The tables after it found empty.
    empty_after: &'a [usize],
}

/// Reads the snapshot chunk by chunk (see the module docs).
pub struct Snapshotter {
    progress: SnapshotProgress,
    config: SnapshotConfig,
    /// Rows to ask for now: halved by repeated ORA-01555 on a chunk.
    chunk_rows: usize,
    /// The previous attempt at the current chunk hit ORA-01555.
    too_old_before: bool,
    notices: Vec<SnapshotNotice>,
    /// Chunks read, in key order, waiting for the stream.
    held: VecDeque<Held>,
    /// The SCN of orders out and not answered yet.
    in_flight: Option<Scn>,
    /// Streamed changes left out because a read holds them.
    folded: u64,
    /// The SCN a crash may have left a chunk's rows sent at, as the
    /// checkpoint this run started from had it.
    resumed_read_at: Option<Scn>,
}

impl Snapshotter {
    pub fn new(progress: SnapshotProgress, config: SnapshotConfig) -> Self {
        let chunk_rows = config.chunk_rows.max(1);
        let resumed_read_at = progress.read_at;
        Self {
            progress,
            config,
            chunk_rows,
            too_old_before: false,
            notices: Vec::new(),
            held: VecDeque::new(),
            in_flight: None,
            folded: 0,
            resumed_read_at,
        }
    }

    pub fn progress(&self) -> &SnapshotProgress {
        &self.progress
    }

    /// Rows the next chunk asks for: the configured size, halved by
    /// repeated ORA-01555 and grown back after whole reads.
    pub fn chunk_rows(&self) -> usize {
        self.chunk_rows
    }

    pub fn finished(&self) -> bool {
        self.progress.finished()
    }

    /// Notices since the last call.
    pub fn take_notices(&mut self) -> Vec<SnapshotNotice> {
        std::mem::take(&mut self.notices)
    }

    /// Whether a chunk may be read at `scn`: not below the last chunk's,
    /// so positions in the output only grow.
    pub fn can_read_at(&self, scn: Scn) -> bool {
        scn >= self.progress.last_scn
    }

    /// The SCN the next chunks are read at, `newest` being the newest the
    /// stream allows and `floor` the output's end: the SCN a chunk whose
    /// rows may have been sent was read at before a restart
    /// ([`SnapshotProgress::read_at`]) while it can still be read at, else
    /// `newest`. `None` when neither may be read at.
    pub fn next_read_scn(&mut self, newest: Scn, floor: Scn) -> Option<Scn> {
        let readable = |s: &Self, scn: Scn| scn >= floor && s.can_read_at(scn);
        if let (None, Some(at)) = (self.reading_scn(), self.progress.read_at) {
            if !readable(self, at) {
                // Below the output's end or the last chunk: no row read
                // there can be written any more.
                self.progress.read_at = None;
            } else if at <= newest {
                return Some(at);
            }
        }
        readable(self, newest).then_some(newest)
    }

    /// Keeps [`SnapshotProgress::read_at`] at the first chunk not emitted.
    fn track_read_at(&mut self) {
        self.progress.read_at = self.reading_scn();
    }

    /// Reads the next chunk `AS OF SCN scn` and emits its rows at once:
    /// `scn` must be an SCN the change stream has emitted every commit up
    /// to, and `ts_ms` the database time at it.
    pub fn step<S: RedoSource>(
        &mut self,
        source: &mut S,
        scn: Scn,
        ts_ms: i64,
        sink: &mut dyn FnMut(CapturedEvent) -> Result<(), SinkError>,
    ) -> Result<Step, SnapshotError> {
        let step = self.read(source, scn, ts_ms)?;
        self.release(scn, sink)?;
        Ok(step)
    }

    /// The SCN of the chunk read and not yet emitted, if any: the stream
    /// must not mine past it before [`Self::release`].
    pub fn held_scn(&self) -> Option<Scn> {
        self.held.front().map(|h| h.scn)
    }

    /// Reads the next chunk `AS OF SCN scn` (at or above every commit the
    /// stream has emitted: the newest SCN, so undo need only last the
    /// read) and holds its rows until [`Self::release`]. Changes of its
    /// keys up to `scn` are inside the read, and the stream leaves them out
    /// ([`Self::admit`]). `ts_ms` is the database time at `scn`.
    pub fn read<S: RedoSource>(
        &mut self,
        source: &mut S,
        scn: Scn,
        ts_ms: i64,
    ) -> Result<Step, SnapshotError> {
        if !self.held.is_empty() || self.in_flight.is_some() {
            return Ok(Step::Retry);
        }
        let orders = self.orders(scn, 1);
        if orders.is_empty() {
            return Ok(Step::Finished);
        }
        let answers = orders.into_iter().map(|o| o.carry_out(source)).collect();
        self.complete(answers, ts_ms)
    }

    /// Emits the held chunks read at the first SCN held once the stream has
    /// reached it (it has emitted every commit up to `emitted_to`), in
    /// order, and moves the snapshot past them. Returns what was emitted,
    /// if anything.
    pub fn release(
        &mut self,
        emitted_to: Scn,
        sink: &mut dyn FnMut(CapturedEvent) -> Result<(), SinkError>,
    ) -> Result<Option<Step>, SnapshotError> {
        let mut step = None;
        // One read SCN at a time: the next one's is then stored by a
        // commit before its rows are sent (`SnapshotProgress::read_at`).
        let Some(scn) = self.held.front().map(|h| h.scn) else {
            return Ok(None);
        };
        while self
            .held
            .front()
            .is_some_and(|h| h.scn == scn && h.scn <= emitted_to)
        {
            let Some(held) = self.held.pop_front() else {
                break;
            };
            let (table, n) = self.emit_held(held, sink)?;
            step = Some(match step {
                Some(Step::Chunk { rows, .. }) => Step::Chunk {
                    table,
                    rows: rows + n,
                },
                _ => Step::Chunk { table, rows: n },
            });
        }
        self.track_read_at();
        Ok(step)
    }

    /// Emits one held chunk's events and counts it.
    fn emit_held(
        &mut self,
        held: Held,
        sink: &mut dyn FnMut(CapturedEvent) -> Result<(), SinkError>,
    ) -> Result<(TableName, usize), SnapshotError> {
        let t = held.table;
        let table = self.progress.tables[t].table.clone();
        let place = ChunkPlace {
            exhausted: held.exhausted,
            empty_after: &held.empty_after,
        };
        let mut rows = self.chunk_events(&table, t, (held.scn, held.ts_ms), held.chunk, place);
        let n = rows.len();
        if self.progress.tables[t].starts_over {
            let seq = self.progress.chunks + 1;
            rows.insert(0, self.truncate_event(&table, held.scn, held.ts_ms, seq));
        }
        for row in rows {
            sink(CapturedEvent::Change(row)).map_err(SnapshotError::Sink)?;
        }
        let p = &mut self.progress;
        p.chunks += 1;
        p.last_scn = held.scn;
        let tp = &mut p.tables[t];
        tp.chunks += 1;
        tp.rows += n as u64;
        tp.starts_over = false;
        // A chunk read whole: the size ORA-01555 cut grows back.
        self.chunk_rows = (self.chunk_rows * 2).min(self.config.chunk_rows.max(1));
        if held.exhausted {
            tp.state = TableState::Done;
            self.notices.push(SnapshotNotice::TableDone {
                table: tp.table.clone(),
                rows: tp.rows,
            });
        } else {
            tp.after_key = held.last_key;
        }
        for j in held.empty_after {
            let tp = &mut p.tables[j];
            tp.state = TableState::Done;
            self.notices.push(SnapshotNotice::TableDone {
                table: tp.table.clone(),
                rows: tp.rows,
            });
        }
        Ok((table, n))
    }

    /// Drops a held chunk the stream cannot reach (its run ends): it is
    /// read again after a restart.
    pub fn forget_held(&mut self) {
        self.held.clear();
        self.in_flight = None;
    }

    fn failed_read(
        &mut self,
        t: usize,
        chunk: u64,
        scn: Scn,
        e: SourceError,
    ) -> Result<Step, SnapshotError> {
        let table = self.progress.tables[t].table.clone();
        if self.resumed_read_at == Some(scn) {
            // Read at a newer SCN now: the deletes in between must reach
            // a consumer that saw the rows sent at `scn`.
            let since = &mut self.progress.tables[t].deletes_since;
            *since = Some(since.map_or(scn, |s| s.min(scn)));
        }
        match snapshot_fault(&e) {
            Some(1555) => {
                // Once may be the stream lagging behind undo; twice in a row
                // means the chunk takes longer to read than undo keeps.
                if self.too_old_before {
                    self.chunk_rows = (self.chunk_rows / 2).max(1);
                }
                self.too_old_before = true;
                let error = match &e {
                    SourceError::Dm { code, .. } => {
                        format!("DM{code} (flashback version expired)")
                    }
                    _ => "ORA-01555 (snapshot too old)".to_string(),
                };
                self.notices.push(SnapshotNotice::SnapshotTooOld {
                    table,
                    chunk,
                    scn,
                    next_rows: self.chunk_rows,
                    error,
                });
                Ok(Step::Retry)
            }
            // The session that read forgot its segments (`order`).
            Some(8103) => {
                self.notices
                    .push(SnapshotNotice::ObjectNoLongerExists { table, chunk, scn });
                Ok(Step::Retry)
            }
            // DDL committed after the read's SCN: the connection is fine
            // (reconnecting would only re-mine); read after the DDL.
            Some(1466) => {
                self.notices
                    .push(SnapshotNotice::DefinitionChanged { table, chunk, scn });
                Ok(Step::Retry)
            }
            Some(942) => {
                let error = e.to_string();
                self.progress.tables[t].state = TableState::Stopped {
                    message: format!("dropped during the snapshot ({error})"),
                };
                self.notices
                    .push(SnapshotNotice::TableDropped { table, error });
                self.chunk_rows = self.config.chunk_rows.max(1);
                Ok(Step::TableStopped)
            }
            _ if e.is_transient() => {
                self.notices.push(SnapshotNotice::ConnectionLost {
                    table,
                    error: e.to_string(),
                });
                Ok(Step::Reconnect)
            }
            _ => Err(SnapshotError::Source { table, source: e }),
        }
    }

    /// The events of a chunk's rows of table `t`, read at `at` (SCN and
    /// database time).
    fn chunk_events(
        &self,
        table: &TableName,
        t: usize,
        at: (Scn, i64),
        chunk: SnapshotChunk,
        place: ChunkPlace<'_>,
    ) -> Vec<ChangeEvent> {
        let (scn, ts_ms) = at;
        let exhausted = place.exhausted;
        let SnapshotChunk { columns, rows, .. } = chunk;
        let later_tables = self.progress.tables[t + 1..]
            .iter()
            .enumerate()
            .any(|(i, x)| {
                x.state == TableState::Reading && !place.empty_after.contains(&(t + 1 + i))
            });
        let nothing_emitted = self.progress.tables.iter().all(|x| x.rows == 0);
        let table_started = self.progress.tables[t].rows > 0;
        let seq = self.progress.chunks + 1;
        let n = rows.len();
        let binary: Vec<bool> = {
            let b = self.config.binary_columns.get(table);
            columns
                .iter()
                .map(|c| b.is_some_and(|b| b.contains(c)))
                .collect()
        };
        let mut events = Vec::with_capacity(n);
        for (i, row) in rows.into_iter().enumerate() {
            let image = columns
                .iter()
                .zip(row)
                .zip(&binary)
                .map(|((c, v), &bin)| {
                    let f = v.map_or(Field::Null, Field::Text);
                    (c, if bin { f.into_binary() } else { f })
                })
                .collect();
            let last_of_table = exhausted && i + 1 == n;
            let place = RowPlace {
                first_of_snapshot: nothing_emitted && i == 0,
                first_of_table: !table_started && i == 0,
                last_of_table,
                last_of_snapshot: last_of_table && !later_tables,
            };
            let mark = place.mark(self.config.marks);
            events.push(self.row_event(table, scn, ts_ms, seq, image, mark));
        }
        events
    }

    /// The truncate event a read that starts over puts before its first
    /// chunk: the rows of the table read before are to be dropped.
    fn truncate_event(&self, table: &TableName, scn: Scn, ts_ms: i64, seq: u64) -> ChangeEvent {
        let row = self.row_event(table, scn, ts_ms, seq, Image::default(), SnapshotMark::Row);
        ChangeEvent {
            op: Op::Truncate,
            after: None,
            ..row
        }
    }

    fn row_event(
        &self,
        table: &TableName,
        scn: Scn,
        ts_ms: i64,
        seq: u64,
        image: Image,
        mark: SnapshotMark,
    ) -> ChangeEvent {
        ChangeEvent {
            op: Op::Read,
            before: None,
            after: Some(image),
            source: SourcePosition {
                name: self.config.server_name.clone(),
                db: self.config.db.clone(),
                schema: table.owner.clone(),
                table: table.table.clone(),
                xid: String::new(),
                scn,
                commit_scn: scn,
                change_ts_ms: ts_ms,
                rs_id: None,
                ssn: 0,
                thread: 0,
                row_id: None,
                dialect: self.config.dialect,
                // A read row belongs to no transaction.
                user_name: None,
                start_scn: None,
                start_ts_ms: None,
            },
            snapshot: mark,
            partial: false,
            commit_ts_ms: ts_ms,
            // Chunk numbers fit u32 for any table a chunk size can cover.
            index: u32::try_from(seq).unwrap_or(u32::MAX),
            table_order: 0,
        }
    }
}

/// The Oracle code a failed read means for the snapshot: DM8's answers
/// to its flashback read in Oracle's terms (a version no longer kept is
/// ORA-01555, a table gone is ORA-00942), so both are survived alike.
fn snapshot_fault(e: &SourceError) -> Option<u32> {
    use super::port::dm_codes::{FLASHBACK_EXPIRED, NO_OBJECT};
    match e {
        SourceError::Dm { code, .. } if *code == FLASHBACK_EXPIRED => Some(1555),
        SourceError::Dm { code, .. } if *code == NO_OBJECT => Some(942),
        other => other.ora_code(),
    }
}

#[cfg(test)]
mod tests;
