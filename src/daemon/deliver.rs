//! The sink stage, on a thread of its own: serialises and writes the
//! events the engine stage queued, and at each [`Commit`] makes them
//! durable (flush and fsync, or the Kafka transaction) before the
//! checkpoint covering them is stored. Only then is the window published to
//! telemetry, so neither a restart nor a scrape ever counts an event the
//! destination may lack.
//!
//! SIGHUP (logrotate) is acted on here, between commits: the output is
//! reopened by its name once everything written to the old file is
//! durable, and the checkpoint stored next records the rotation.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::time::Instant;

use crate::engine::checkpoint::{EventPosition, FileCheckpointStore};
use crate::sink::{EventSink, SinkError};
use crate::telemetry::{Tally, Telemetry};

use super::error::DaemonError;
use super::notice::{Notice, Reporter};
use super::queue::{Commit, ToSink};

/// How the sink stage ended when it did not fail.
#[derive(Debug, Default)]
pub struct Delivered {
    /// Events the destination dropped as already held (a side file's).
    pub skipped: u64,
    /// Schema-change events left out on purpose.
    pub schema_changes_left_out: u64,
}

/// Why the sink stage stopped before the queue ended.
#[derive(Debug)]
pub enum Undelivered {
    /// The reader of stdout went away (`| head`): its choice.
    ReaderGone,
    Failed(DaemonError),
}

/// What the sink stage owns.
pub struct SinkStage<'a> {
    pub sink: Box<dyn EventSink>,
    /// Where checkpoints go; `None` when the sink keeps them itself.
    pub store: Option<FileCheckpointStore>,
    pub telemetry: Arc<Telemetry>,
    pub hangup: Arc<AtomicBool>,
    /// The output's name, for the rotation notice.
    pub output: String,
    /// The event after which the output was last reopened.
    pub rotated_after: Option<EventPosition>,
    /// Events made durable so far, for the status line.
    pub durable: Arc<AtomicU64>,
    pub reporter: &'a dyn Reporter,
}

impl SinkStage<'_> {
    /// Delivers what arrives until the engine stage hangs up.
    pub fn run(mut self, queue: &Receiver<ToSink>) -> Result<Delivered, Undelivered> {
        let mut tally = Tally::default();
        let mut written = 0u64;
        for message in queue {
            match message {
                ToSink::Events(batch) => {
                    for event in &batch {
                        self.sink.write(event).map_err(|e| failure(&e))?;
                        tally.count(event);
                    }
                    written += batch.len() as u64;
                }
                ToSink::Commit(commit) => {
                    self.commit(*commit, &mut tally)?;
                    self.durable.store(written, Ordering::Relaxed);
                }
            }
        }
        Ok(Delivered {
            skipped: self.sink.skipped_duplicates(),
            schema_changes_left_out: self.sink.schema_changes_left_out(),
        })
    }

    /// Events first, then the checkpoint that covers them (in one
    /// transaction when the sink keeps the checkpoint).
    fn commit(&mut self, commit: Commit, tally: &mut Tally) -> Result<(), Undelivered> {
        let mut checkpoint = commit.checkpoint;
        if let Some(cp) = checkpoint.as_mut() {
            cp.last_event = self.sink.last_position();
            cp.rotated_after.clone_from(&self.rotated_after);
        }
        let committing = Instant::now();
        let committed = match &self.store {
            Some(_) => self.sink.commit(),
            None => self.sink.commit_with(checkpoint.as_ref()),
        };
        self.telemetry
            .sink_committed(committing.elapsed(), self.sink.in_flight());
        committed.map_err(|e| failure(&e))?;
        if self.hangup.swap(false, Ordering::Relaxed) {
            self.reopen(checkpoint.as_mut())?;
        }
        if let Some(cp) = checkpoint.as_mut() {
            // What the file holds now, committed: a restart proves the file
            // it appends to begins with exactly this.
            cp.output = self.sink.output_mark().map_err(|e| failure(&e))?;
        }
        if let (Some(store), Some(cp)) = (&self.store, &checkpoint) {
            store
                .save(cp)
                .map_err(|e| Undelivered::Failed(DaemonError::usage(format!("checkpoint: {e}"))))?;
        }
        if let Some(progress) = &commit.snapshot {
            self.telemetry.snapshot(progress);
        }
        self.telemetry.update(
            &commit.status,
            commit.volumes,
            tally,
            checkpoint.is_some(),
            false,
        );
        Ok(())
    }

    /// Reopens the output after logrotate moved it away, once everything
    /// written is committed; the checkpoint about to be stored records it.
    fn reopen(
        &mut self,
        checkpoint: Option<&mut crate::engine::checkpoint::Checkpoint>,
    ) -> Result<(), Undelivered> {
        match self.sink.reopen() {
            Ok(true) => {
                self.rotated_after = self.sink.last_position();
                if let Some(cp) = checkpoint {
                    cp.rotated_after.clone_from(&self.rotated_after);
                }
                self.reporter
                    .notice(Notice::info(format!("SIGHUP: reopened {}", self.output)));
                Ok(())
            }
            Ok(false) => Ok(()),
            Err(e) => Err(Undelivered::Failed(DaemonError::usage(e.to_string()))),
        }
    }
}

/// A sink error as the run ends on it: a closed pipe is the reader's
/// choice, anything else a failure.
pub fn failure(e: &SinkError) -> Undelivered {
    if is_closed_pipe(e) {
        Undelivered::ReaderGone
    } else {
        Undelivered::Failed(DaemonError::usage(e.to_string()))
    }
}

/// A write that failed because the reader of the pipe went away.
pub fn is_closed_pipe(e: &SinkError) -> bool {
    matches!(e, SinkError::Io { source, .. }
        if source.kind() == std::io::ErrorKind::BrokenPipe)
}
