//! The initial snapshot as the daemon drives it: which snapshot a run
//! takes or resumes, and its chunks read between the stream's windows at
//! the newest SCN, each emitted once the stream reaches that SCN and closed
//! by a commit of its own. The
//! chunk reading itself is the engine's ([`crate::engine::snapshot`]).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use crate::engine::event::ValueForms;
use crate::engine::snapshot::{
    OutputTail, SnapshotConfig, SnapshotKey, SnapshotMarks, SnapshotMode, SnapshotProgress,
    Snapshotter, Step,
};
use crate::output::count;
use crate::source::{Dialect, RedoSource, TableName};

use super::error::DaemonError;
use super::mine::{EngineEnd, EngineStage, Flow};
use super::notice::{Notice, Reporter};

/// The tables a snapshot reads and what its events carry.
pub struct SnapshotTables {
    /// In dictionary order, with `NUM_ROWS` when known.
    pub names: Vec<(TableName, Option<u64>)>,
    pub key_columns: BTreeMap<TableName, Vec<String>>,
    /// The keys snapshot reads are ordered by, for the stream gate.
    pub keys: BTreeMap<TableName, SnapshotKey>,
    pub binary_columns: BTreeMap<TableName, Vec<String>>,
    pub server_name: String,
    /// `source.db`: the PDB the tables are read in, else the database.
    pub db: String,
    pub dialect: Dialect,
}

/// What planning a snapshot needs to know of the run.
pub struct SnapshotPlan<'a> {
    pub mode: SnapshotMode,
    /// Whether `mode` was asked for (rather than defaulted).
    pub asked: bool,
    /// No checkpoint existed: a new snapshot may start.
    pub fresh: bool,
    pub chunk_rows: usize,
    pub marks: SnapshotMarks,
    /// The file output, whose last rows an unfinished snapshot resumes after.
    pub output: Option<&'a Path>,
    /// The forms the output's values are written in.
    pub forms: ValueForms,
}

/// The snapshot this run takes or resumes, if any: an unfinished one in the
/// checkpoint is resumed (after the rows the output already holds), a new
/// one is planned on a fresh start in a snapshotting mode.
pub fn plan(
    plan: &SnapshotPlan<'_>,
    stored: Option<SnapshotProgress>,
    tables: &SnapshotTables,
    reporter: &dyn Reporter,
) -> Result<Option<Snapshotter>, DaemonError> {
    let config = SnapshotConfig {
        chunk_rows: plan.chunk_rows,
        server_name: tables.server_name.clone(),
        db: tables.db.clone(),
        binary_columns: tables.binary_columns.clone(),
        dialect: tables.dialect,
        keys: tables.keys.clone(),
        marks: plan.marks,
    };
    let say = |m: String| reporter.notice(Notice::info(m));
    let progress = match stored {
        Some(p) if !p.finished() && plan.mode == SnapshotMode::Never && plan.asked => {
            say(format!(
                "warning: the checkpoint holds an unfinished snapshot ({} so far); \
                 --snapshot never leaves the rest of it unread",
                count(p.rows(), "row", "rows")
            ));
            return Ok(None);
        }
        Some(mut p) => {
            if !p.finished() {
                if let Some(output) = plan.output {
                    account_for_output(&mut p, output, tables, plan.forms, reporter)?;
                }
            }
            let started = p.rows() > 0 || p.tables.iter().any(|t| t.after_key.is_some());
            if !p.finished() && started {
                say(format!(
                    "resuming the snapshot ({} in {} so far)",
                    count(p.rows(), "row", "rows"),
                    count(p.chunks, "chunk", "chunks")
                ));
            } else if !p.finished() {
                say(format!(
                    "starting the snapshot of {} table(s)",
                    p.tables.len()
                ));
            }
            p
        }
        None if plan.fresh && plan.mode != SnapshotMode::Never => {
            if tables.names.is_empty() {
                say("no table to snapshot; streaming only".into());
                return Ok(None);
            }
            SnapshotProgress::new(tables.names.clone())
        }
        None => return Ok(None),
    };
    Ok(Some(Snapshotter::new(progress, config)))
}

/// Counts the rows of a chunk an interrupted run wrote after its last
/// checkpoint, from the output's last line.
fn account_for_output(
    p: &mut SnapshotProgress,
    output: &Path,
    tables: &SnapshotTables,
    forms: ValueForms,
    reporter: &dyn Reporter,
) -> Result<(), DaemonError> {
    let tail = crate::sink::last_snapshot_row(output)
        .map_err(|e| DaemonError::usage(format!("output {}: {e}", output.display())))?;
    if let Some(row) = tail {
        let name = TableName {
            owner: row["source"]["schema"].as_str().unwrap_or_default().into(),
            table: row["source"]["table"].as_str().unwrap_or_default().into(),
        };
        let keys = tables.key_columns.get(&name).cloned().unwrap_or_default();
        let kinds = tables.keys.get(&name).map_or(&[][..], |k| &k.kinds[..]);
        let resumed = p
            .account_for_output_tail(&row, &keys, kinds, forms)
            .map_err(|e| DaemonError::usage(e.to_string()))?;
        match resumed {
            Some(OutputTail::After(table, key)) => reporter.notice(Notice::info(format!(
                "the output holds part of a chunk of {table} past the checkpoint; \
                 its read goes on after key ({})",
                key.join(", ")
            ))),
            Some(OutputTail::StartsOver(table)) => reporter.notice(Notice::info(format!(
                "the output holds part of a chunk of {table} past the checkpoint, and \
                 {table} has no key to go on after; its read starts over, after a truncate \
                 event that drops the rows written so far from a consumer"
            ))),
            Some(OutputTail::Ended(table)) => reporter.notice(Notice::info(format!(
                "the output holds the end of {table}'s read past the checkpoint; \
                 {table} is not read again"
            ))),
            None => {}
        }
    }
    Ok(())
}

/// Said once when the snapshot's last table is done: rows in all, the
/// rate of this run's part (a resumed snapshot read the rest before), and
/// the streamed changes its reads held.
fn done_line(snap: &Snapshotter, rows_before: u64, secs: f64) -> String {
    let p = snap.progress();
    let read = p.rows().saturating_sub(rows_before);
    let rate = if secs > 0.0 { read as f64 / secs } else { 0.0 };
    format!(
        "snapshot complete: {} rows in all; this run read {read} rows in {secs:.1} s ({rate:.0} rows/s); \
         {} streamed changes were inside a chunk's read and left to it",
        p.rows(),
        snap.folded()
    )
}

/// How reading a chunk ended, when not with a step.
enum ChunkEnd {
    /// The stream has to move on first (or the event limit was reached).
    NotNow,
    Stop(EngineEnd),
}

impl<S: RedoSource> EngineStage<'_, S> {
    /// One chunk between two windows; no pause while chunks remain.
    pub(super) fn snapshot_step(&mut self) -> Flow {
        match self.chunk() {
            Err(ChunkEnd::Stop(end)) => Flow::End(end),
            Ok(_) if self.snapshot.as_ref().is_some_and(Snapshotter::finished) => {
                self.say_done();
                if self.mode == SnapshotMode::InitialOnly {
                    self.reporter.notice(Notice::info(
                        "--snapshot initial-only stops here; run again without it to stream on \
                         from the checkpoint",
                    ));
                    return Flow::End(EngineEnd::Done);
                }
                Flow::Next
            }
            Ok(_) | Err(ChunkEnd::NotNow) => Flow::Next,
        }
    }

    fn say_done(&self) {
        if let Some(snap) = &self.snapshot {
            let secs = self.snapshot_started.elapsed().as_secs_f64();
            self.reporter.notice(Notice::info(done_line(
                snap,
                self.snapshot_rows_before,
                secs,
            )));
        }
    }

    /// Emits the held chunk once the stream has reached its SCN, or reads
    /// the next one at the newest SCN and holds the stream there until
    /// then; each emitted chunk is closed by a commit of its own.
    fn chunk(&mut self) -> Result<Step, ChunkEnd> {
        if self.readers.is_some() {
            return self.chunk_beside();
        }
        let Some(snap) = self.snapshot.as_mut() else {
            return Err(ChunkEnd::NotNow);
        };
        let Some(consistent) = self.capture.consistent_scn() else {
            return Err(ChunkEnd::NotNow);
        };
        if snap.held_scn().is_none() {
            // Not below the output's end either: after a restart the stream
            // re-mines what the output already holds, and rows positioned
            // below its end would be dropped as duplicates of events
            // written before.
            let output_end = self.outbox.last().map_or(0, |p| p.commit_scn);
            let Some(scn) = self
                .capture
                .snapshot_read_scn()
                .and_then(|newest| snap.next_read_scn(newest, output_end))
            else {
                return Err(ChunkEnd::NotNow);
            };
            let step = self.read_chunk(scn)?;
            if !matches!(step, Step::Chunk { .. }) {
                return Ok(step);
            }
        }
        self.release_chunk(consistent)
    }

    /// Reads a chunk at `scn` and holds the stream there.
    fn read_chunk(&mut self, scn: u64) -> Result<Step, ChunkEnd> {
        let Some(snap) = self.snapshot.as_mut() else {
            return Err(ChunkEnd::NotNow);
        };
        let ts_ms = self
            .capture
            .status()
            .current_time
            .map_or(0, |t| t.and_utc().timestamp_millis());
        let at = std::time::Instant::now();
        let step = snap.read(self.capture.source_mut(), scn, ts_ms);
        self.telemetry
            .snapshot_chunk_read(at.elapsed(), snap.chunk_rows());
        self.say_snapshot_notices();
        let step = match step {
            Ok(step) => step,
            Err(e) => return Err(self.chunk_failed(e)),
        };
        if step == Step::Reconnect {
            self.capture.reconnect();
        }
        self.capture
            .hold_at(self.snapshot.as_ref().and_then(Snapshotter::hold_scn));
        Ok(step)
    }

    /// With reader sessions: takes their answers in, orders the next
    /// chunks at the newest SCN while those wait for the stream, and emits
    /// what the stream has reached. The stream mines on meanwhile, up to
    /// the SCN of the first chunk not emitted.
    fn chunk_beside(&mut self) -> Result<Step, ChunkEnd> {
        let Some(consistent) = self.capture.consistent_scn() else {
            return Err(ChunkEnd::NotNow);
        };
        let answered = self.take_answers(consistent)?;
        self.order_chunks()?;
        self.capture
            .hold_at(self.snapshot.as_ref().and_then(Snapshotter::hold_scn));
        match self.release_chunk(consistent) {
            Err(ChunkEnd::NotNow) => answered.ok_or(ChunkEnd::NotNow),
            other => other,
        }
    }

    /// The readers' answers, once all are in: waited for only when the
    /// stream has reached their SCN, since it can mine no further before
    /// them.
    fn take_answers(&mut self, consistent: u64) -> Result<Option<Step>, ChunkEnd> {
        let (Some(snap), Some(readers)) = (self.snapshot.as_mut(), self.readers.as_mut()) else {
            return Ok(None);
        };
        let Some(scn) = snap.in_flight() else {
            return Ok(None);
        };
        let wait = if consistent >= scn {
            Duration::from_millis(100)
        } else {
            Duration::ZERO
        };
        let answers = match readers.answers(wait) {
            Ok(Some(a)) => a,
            Ok(None) => return Ok(None),
            Err(e) => return Err(self.readers_failed(&e)),
        };
        let took = readers.elapsed();
        let ts_ms = self
            .capture
            .status()
            .current_time
            .map_or(0, |t| t.and_utc().timestamp_millis());
        let step = snap.complete(answers, ts_ms);
        self.telemetry.snapshot_chunk_read(took, snap.chunk_rows());
        self.say_snapshot_notices();
        match step {
            // The reader opened its session again, or will try at the
            // next read: a second's pause, so an outage is not hammered.
            Ok(Step::Reconnect) => {
                self.pause(Duration::from_secs(1));
                Ok(Some(Step::Retry))
            }
            Ok(step) => Ok(Some(step)),
            Err(e) => Err(self.chunk_failed(e)),
        }
    }

    /// Hands the readers the next chunks, read at the newest SCN the
    /// database had at the stream's last poll.
    fn order_chunks(&mut self) -> Result<(), ChunkEnd> {
        let output_end = self.outbox.last().map_or(0, |p| p.commit_scn);
        let (Some(snap), Some(readers)) = (self.snapshot.as_mut(), self.readers.as_mut()) else {
            return Ok(());
        };
        let Some(scn) = self
            .capture
            .snapshot_read_scn()
            .and_then(|newest| snap.next_read_scn(newest, output_end))
        else {
            return Ok(());
        };
        let orders = snap.orders(scn, readers.count());
        if orders.is_empty() {
            return Ok(());
        }
        if let Err(e) = readers.submit(orders) {
            return Err(self.readers_failed(&e));
        }
        Ok(())
    }

    /// Takes in the answers still owed and closes the reader sessions.
    fn settle_readers(&mut self) -> Result<(), EngineEnd> {
        while self
            .snapshot
            .as_ref()
            .is_some_and(|s| s.in_flight().is_some())
        {
            if self.stopped() {
                break;
            }
            match self.take_answers(u64::MAX) {
                Ok(_) => {}
                Err(ChunkEnd::NotNow) => break,
                Err(ChunkEnd::Stop(end)) => return Err(end),
            }
        }
        self.readers = None;
        if let Some(snap) = self.snapshot.as_mut() {
            // Orders not answered are read again on the stream's session.
            if snap.in_flight().is_some() {
                snap.forget_held();
            }
        }
        Ok(())
    }

    fn readers_failed(&mut self, e: &crate::source::SourceError) -> ChunkEnd {
        if let Some(snap) = self.snapshot.as_mut() {
            snap.forget_held();
        }
        ChunkEnd::Stop(EngineEnd::Failed(DaemonError::Untrusted(e.to_string())))
    }

    /// Emits the held chunk when the stream has emitted every commit up
    /// to its SCN, and lets the stream go on.
    fn release_chunk(&mut self, consistent: u64) -> Result<Step, ChunkEnd> {
        self.store_read_at(consistent)?;
        let Some(snap) = self.snapshot.as_mut() else {
            return Err(ChunkEnd::NotNow);
        };
        let outbox = &mut self.outbox;
        let released = snap.release(consistent, &mut |e| outbox.push(e));
        self.say_snapshot_notices();
        let step = match released {
            Ok(None) => return Err(ChunkEnd::NotNow),
            Ok(Some(step)) => step,
            Err(e) => return Err(self.chunk_failed(e)),
        };
        self.capture
            .hold_at(self.snapshot.as_ref().and_then(Snapshotter::hold_scn));
        self.commit()
            .map_err(|_| ChunkEnd::Stop(EngineEnd::SinkStopped))?;
        Ok(step)
    }

    /// Commits the SCN the chunks about to be emitted were read at before
    /// any of their rows is sent, unless a commit since their read did: a
    /// restart after a crash that cut those rows short reads them again at
    /// that SCN, so they repeat what a consumer may have seen of them.
    fn store_read_at(&mut self, consistent: u64) -> Result<(), ChunkEnd> {
        let Some(snap) = self.snapshot.as_ref() else {
            return Ok(());
        };
        let due = snap.held_scn().is_some_and(|s| s <= consistent);
        if due && snap.progress().read_at != self.stored_read_at {
            self.commit()
                .map_err(|_| ChunkEnd::Stop(EngineEnd::SinkStopped))?;
        }
        Ok(())
    }

    fn say_snapshot_notices(&mut self) {
        let Some(snap) = self.snapshot.as_mut() else {
            return;
        };
        for n in snap.take_notices() {
            if let Some((table, code)) = n.retry() {
                self.telemetry
                    .snapshot_retry(&table.owner, &table.table, code);
            }
            self.reporter
                .notice(Notice::info(format!("snapshot: {}", n.message())));
        }
        self.snapshot_drawn = self.reporter.snapshot(snap.progress());
    }

    /// A chunk cut short: what was written of it is made durable (its
    /// rows are counted from the output at a restart), then the run ends
    /// unless only the event limit was reached.
    fn chunk_failed(&mut self, e: crate::engine::snapshot::SnapshotError) -> ChunkEnd {
        if self.commit_with(None).is_err() || self.outbox.stopped() {
            return ChunkEnd::Stop(EngineEnd::SinkStopped);
        }
        if self.outbox.limit_reached() {
            return ChunkEnd::NotNow;
        }
        ChunkEnd::Stop(EngineEnd::Failed(DaemonError::Untrusted(e.to_string())))
    }

    /// Reads the remaining chunks at `--until-scn`, where the stream
    /// stopped.
    pub(super) fn finish_snapshot_at_until(&mut self) -> Result<(), EngineEnd> {
        const RETRIES: u32 = 5;
        // The stream stands still now: the rest is read on its session.
        self.settle_readers()?;
        let mut retries = 0;
        while self.snapshot.as_ref().is_some_and(|s| !s.finished())
            && !self.stopped()
            && !self.outbox.limit_reached()
        {
            match self.chunk() {
                Ok(Step::Retry) => {
                    retries += 1;
                    if retries > RETRIES {
                        return Err(EngineEnd::Failed(DaemonError::Untrusted(
                            "the snapshot cannot be completed at --until-scn: every read there \
                             fails (its undo is gone, or the table's segments changed after \
                             it); run with a later --until-scn"
                                .into(),
                        )));
                    }
                }
                Ok(_) => retries = 0,
                Err(ChunkEnd::NotNow) => break,
                Err(ChunkEnd::Stop(end)) => return Err(end),
            }
        }
        if self.snapshot.as_ref().is_some_and(Snapshotter::finished) {
            self.say_done();
        } else if !self.stopped() && !self.outbox.limit_reached() {
            self.say_unfinished_at_until();
        }
        Ok(())
    }

    /// Why a run that reached `--until-scn` leaves the snapshot unfinished:
    /// its next read needs an SCN the stream was not allowed to reach, and
    /// the changes of the keys it has not read wait with it.
    fn say_unfinished_at_until(&self) {
        let Some(snap) = self.snapshot.as_ref() else {
            return;
        };
        let read_at = snap
            .held_scn()
            .map(|scn| format!(" (read at SCN {scn})"))
            .unwrap_or_default();
        self.reporter.notice(Notice::info(format!(
            "warning: the snapshot is not finished at --until-scn ({} so far): its next \
             chunk{read_at} cannot be written before the stream passes --until-scn, and \
             changes of keys not read yet wait for it; run again without --until-scn, or with \
             a later one, to finish it",
            count(snap.progress().rows(), "row", "rows")
        )));
    }
}
