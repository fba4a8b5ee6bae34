//! Chunk reads as orders, so that they can run on sessions of their own
//! beside the stream: the snapshot plans the chunks to read at an SCN
//! ([`Snapshotter::orders`]), any session carries an order out
//! ([`ReadOrder::carry_out`]), and the snapshot takes the answers back in
//! key order ([`Snapshotter::complete`]). Readers side by side read
//! consecutive chunks of one table at one SCN: each starts at the key where
//! the chunks before it end ([`RedoSource::snapshot_key_after`]), and one
//! consistent read cannot change between them, so together they read
//! exactly what one reader would, chunk after chunk.

use super::segments::replaced_behind;
use super::{Held, SnapshotError, SnapshotMarks, Snapshotter, Step, TableState};
use crate::engine::port::{RedoSource, SnapshotChunk, SourceError, TableName};
use crate::engine::row::Scn;

/// One chunk to read.
#[derive(Debug, Clone)]
pub struct ReadOrder {
    table: usize,
    name: TableName,
    scn: Scn,
    /// The key the group of chunks starts after.
    after: Option<Vec<String>>,
    /// Its place in the group: it skips this many chunks' rows first.
    place: usize,
    rows: usize,
    /// A one-row read past a full chunk says whether it ends its table.
    probe_end: bool,
    /// A table read by ROWID compares its segments first (`segments`).
    segments_before: Option<Option<Vec<u64>>>,
    /// The tables after this one still read, with where each stands: a
    /// chunk ending its table probes them for emptiness.
    later: Vec<(usize, TableName, Option<Vec<String>>)>,
}

/// What carrying out an order found.
#[derive(Debug)]
pub struct ReadAnswer {
    order: ReadOrder,
    found: Result<Found, SourceError>,
}

#[derive(Debug)]
enum Found {
    /// The chunk would start past the table's end.
    Beyond,
    Chunk {
        chunk: SnapshotChunk,
        exhausted: bool,
        empty_after: Vec<usize>,
        segments: Option<Vec<u64>>,
    },
}

impl ReadAnswer {
    /// The read failed as a dropped connection does: its session is to
    /// be opened again before the next.
    pub fn lost_connection(&self) -> bool {
        self.found.as_ref().is_err_and(SourceError::is_transient)
    }
}

impl ReadOrder {
    /// The SCN the chunk is read at.
    pub fn scn(&self) -> Scn {
        self.scn
    }

    /// Reads the chunk on `source`, any session of the database. A
    /// session told its segments changed (ORA-08103, ORA-01466) forgets
    /// what it cached of them.
    pub fn carry_out(self, source: &mut dyn RedoSource) -> ReadAnswer {
        let found = self.read(source);
        if let Err(e) = &found {
            if matches!(e.ora_code(), Some(8103 | 1466)) {
                source.forget_segments(&self.name);
            }
        }
        ReadAnswer { order: self, found }
    }

    fn read(&self, source: &mut dyn RedoSource) -> Result<Found, SourceError> {
        let mut after = self.after.clone();
        let segments = match &self.segments_before {
            Some(before) => {
                let now = source.segment_ids(&self.name)?;
                if let (Some(b), Some(n)) = (before, &now) {
                    if b != n {
                        // Fresh extents; from the start when it had passed one.
                        source.forget_segments(&self.name);
                        if !replaced_behind(b, n, after.as_deref()).is_empty() {
                            after = None;
                        }
                    }
                }
                now
            }
            None => None,
        };
        if self.place > 0 {
            let skip = self.place.saturating_mul(self.rows);
            match source.snapshot_key_after(&self.name, self.scn, after.as_deref(), skip)? {
                Some(key) => after = Some(key),
                None => return Ok(Found::Beyond),
            }
        }
        let chunk = source.snapshot_chunk(&self.name, self.scn, after.as_deref(), self.rows)?;
        let mut exhausted = chunk.last_key.is_none();
        if !exhausted && self.probe_end {
            // A full chunk may hold its table's final rows; one row past
            // it at the same SCN is the same consistent read.
            let next = source.snapshot_chunk(&self.name, self.scn, chunk.last_key.as_deref(), 1)?;
            exhausted = next.rows.is_empty();
        }
        let empty_after = if exhausted && !chunk.rows.is_empty() && self.probe_end {
            self.empty_tables_after(source)
        } else {
            Vec::new()
        };
        Ok(Found::Chunk {
            chunk,
            exhausted,
            empty_after,
            segments,
        })
    }

    /// The later tables found empty at the chunk's SCN, up to the first
    /// that is not: the row ending this table is then the snapshot's
    /// `last`. A probe that fails leaves its table to be read in turn.
    fn empty_tables_after(&self, source: &mut dyn RedoSource) -> Vec<usize> {
        let mut empty = Vec::new();
        for (j, name, after) in &self.later {
            match source.snapshot_chunk(name, self.scn, after.as_deref(), 1) {
                Ok(probe) if probe.rows.is_empty() => empty.push(*j),
                _ => break,
            }
        }
        empty
    }
}

impl Snapshotter {
    /// The chunks to read next at `scn` by up to `readers` sessions side by
    /// side: consecutive chunks of the table being read (one for a table
    /// read by ROWID). None while earlier orders are out, when two groups
    /// would wait for the stream, or when nothing is left.
    pub fn orders(&mut self, scn: Scn, readers: usize) -> Vec<ReadOrder> {
        // One group may wait for the stream while the next is read.
        if self.in_flight.is_some() || self.held.len() > readers.max(1) {
            return Vec::new();
        }
        if self.held.back().is_some_and(|h| h.scn > scn) {
            return Vec::new();
        }
        let Some((t, after)) = self.frontier() else {
            return Vec::new();
        };
        let name = self.progress.tables[t].table.clone();
        let keyed = self.config.keys.contains_key(&name);
        if !keyed && !self.held.is_empty() {
            // Its segments are checked against the last chunk's.
            return Vec::new();
        }
        let probe_end = self.config.marks == SnapshotMarks::Positions;
        let later = self.progress.tables[t + 1..]
            .iter()
            .enumerate()
            .filter(|(_, tp)| tp.state == TableState::Reading)
            .map(|(i, tp)| (t + 1 + i, tp.table.clone(), tp.after_key.clone()))
            .collect::<Vec<_>>();
        let segments_before = (!keyed).then(|| self.progress.tables[t].segments.clone());
        let group = if keyed { readers.max(1) } else { 1 };
        self.in_flight = Some(scn);
        self.track_read_at();
        (0..group)
            .map(|place| ReadOrder {
                table: t,
                name: name.clone(),
                scn,
                after: after.clone(),
                place,
                rows: self.chunk_rows,
                probe_end,
                segments_before: segments_before.clone(),
                later: if probe_end { later.clone() } else { Vec::new() },
            })
            .collect()
    }

    /// The table the next chunk belongs to and the key it starts after:
    /// past the chunks held for the stream, else where progress stands.
    fn frontier(&self) -> Option<(usize, Option<Vec<String>>)> {
        let Some(h) = self.held.back() else {
            let t = self.progress.current()?;
            return Some((t, self.progress.tables[t].after_key.clone()));
        };
        if !h.exhausted {
            return Some((h.table, h.last_key.clone()));
        }
        let t = self.progress.tables[h.table + 1..]
            .iter()
            .enumerate()
            .map(|(i, tp)| (h.table + 1 + i, tp))
            .find(|(j, tp)| tp.state == TableState::Reading && !h.empty_after.contains(j))?
            .0;
        Some((t, self.progress.tables[t].after_key.clone()))
    }

    /// The SCN of orders out and not answered yet: the stream must not
    /// mine past it either.
    pub fn in_flight(&self) -> Option<Scn> {
        self.in_flight
    }

    /// Where the stream must stop: at the first chunk read and not
    /// emitted, at the SCN of chunks being read, or where a restart is to
    /// read again a chunk whose rows may have been sent.
    pub fn hold_scn(&self) -> Option<Scn> {
        self.reading_scn().or(self.progress.read_at)
    }

    /// The SCN of the first chunk read or being read and not emitted.
    pub(super) fn reading_scn(&self) -> Option<Scn> {
        match (self.held_scn(), self.in_flight) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Takes back the answers to the orders out, in any order: the chunks
    /// read are held for the stream in key order, up to the first that
    /// failed or ended its table. Says what to do next as [`Self::read`]
    /// does.
    pub fn complete(
        &mut self,
        answers: Vec<ReadAnswer>,
        ts_ms: i64,
    ) -> Result<Step, SnapshotError> {
        self.in_flight = None;
        let step = self.hold_answers(answers, ts_ms);
        // A failed read is made again at a newer SCN: its rows were never
        // sent.
        self.track_read_at();
        step
    }

    fn hold_answers(
        &mut self,
        mut answers: Vec<ReadAnswer>,
        ts_ms: i64,
    ) -> Result<Step, SnapshotError> {
        answers.sort_by_key(|a| a.order.place);
        let mut read: Option<(TableName, usize)> = None;
        for answer in answers {
            let ReadOrder {
                table: t,
                name,
                scn,
                ..
            } = answer.order;
            let held_of_t = self.held.iter().filter(|h| h.table == t).count() as u64;
            let chunk_no = self.progress.tables[t].chunks + 1 + held_of_t;
            match answer.found {
                Ok(Found::Beyond) => break,
                Ok(Found::Chunk {
                    chunk,
                    exhausted,
                    empty_after,
                    segments,
                }) => {
                    if let Some(now) = segments {
                        self.segments_seen(t, now);
                    }
                    self.too_old_before = false;
                    let n = chunk.rows.len();
                    let last_key = chunk.last_key.clone();
                    self.held.push_back(Held {
                        table: t,
                        scn,
                        ts_ms,
                        chunk,
                        exhausted,
                        last_key,
                        empty_after,
                    });
                    let total = read.as_ref().map_or(0, |r| r.1) + n;
                    read = Some((name, total));
                    if exhausted {
                        break;
                    }
                }
                Err(e) => return self.failed_read(t, chunk_no, scn, e),
            }
        }
        Ok(match read {
            Some((table, rows)) => Step::Chunk { table, rows },
            None => Step::Retry,
        })
    }
}
