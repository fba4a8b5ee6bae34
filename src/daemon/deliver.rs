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
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::engine::checkpoint::{Checkpoint, EventPosition, FileCheckpointStore};
use crate::engine::event::{CapturedEvent, Op};
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

/// Events a group of commits holds at most before it is committed.
pub const GROUP_EVENTS: usize = 50_000;
/// How long the first event of a group waits at most for its commit.
pub const GROUP_WINDOW: std::time::Duration = std::time::Duration::from_millis(500);
/// A group stays open for this many times what the last commit took
/// (up to [`GROUP_WINDOW`]) while more arrives: the commits then take at
/// most about a fifth of the sink's time, however slow each one is.
const GROUP_PER_COMMIT: u32 = 4;

/// How often an idle sink stage looks whether an open commit is due.
const TICK: Duration = Duration::from_millis(500);

/// How much one sink commit holds at most. A window past it (one database
/// transaction of millions of rows) is committed in parts, each with the
/// window's resume point: a restart mines the window again and drops what
/// the destination holds, so a part is never lost nor written twice.
#[derive(Debug, Clone, Copy)]
pub struct CommitBound {
    /// Events written since the last commit.
    pub events: usize,
    /// How long a commit may stay open (a Kafka transaction's timeout
    /// aborts it, and the same window would be replayed for ever).
    pub open_for: Option<Duration>,
}

impl Default for CommitBound {
    fn default() -> Self {
        Self {
            events: DEFAULT_COMMIT_EVENTS,
            open_for: None,
        }
    }
}

/// Events one sink commit holds at most unless asked otherwise.
pub const DEFAULT_COMMIT_EVENTS: usize = 100_000;

/// Commits waiting to be made durable together.
#[derive(Default)]
struct Group {
    /// The latest commit received, not yet made durable.
    pending: Option<Box<Commit>>,
    /// Events written since the last durable commit.
    events: usize,
    /// When the first of them was written.
    started: Option<Instant>,
    /// Events written in all, for the status line.
    written: u64,
    /// The events the pending commit covers, published with it.
    tally: Tally,
    /// Events written since the pending commit arrived: a later window's,
    /// published with the commit that closes it, never with an earlier
    /// one (a scrape would count events past the commit SCN it shows).
    after_pending: Tally,
    /// The group holds a snapshot chunk's rows: it ends at their commit.
    snapshot_rows: bool,
    /// Where a restart resumes for the events written since the last
    /// commit, when the engine said so.
    resume_point: Option<Box<Checkpoint>>,
    /// What the last commit took.
    last_commit: Duration,
}

impl Group {
    /// Whether the pending commit must be made durable now. A chunk's rows
    /// are committed alone: a restart accounts for at most one chunk past
    /// the checkpoint, from the output's last row. A group never holds
    /// more than one commit may (`bound`), grouped or not.
    fn must_commit(&self, bound: usize) -> bool {
        self.snapshot_rows
            || self.events >= GROUP_EVENTS.min(bound)
            || self.started.is_some_and(|t| t.elapsed() >= GROUP_WINDOW)
    }

    /// How long to wait for the next message before committing the
    /// pending commit: until the group has been open [`GROUP_PER_COMMIT`]
    /// times the last commit's length; nothing once it has.
    fn wait_for_more(&self) -> Duration {
        let open_for = (self.last_commit * GROUP_PER_COMMIT).min(GROUP_WINDOW);
        self.started
            .map_or(Duration::ZERO, |t| open_for.saturating_sub(t.elapsed()))
    }
}

fn is_snapshot_row(event: &CapturedEvent) -> bool {
    matches!(event, CapturedEvent::Change(c) if c.op == Op::Read)
}

/// What the sink stage owns.
pub struct SinkStage<'a> {
    pub sink: Box<dyn EventSink>,
    /// Where checkpoints go; `None` when the sink keeps them itself.
    pub store: Option<FileCheckpointStore>,
    pub telemetry: Arc<Telemetry>,
    pub hangup: Arc<AtomicBool>,
    /// SIGTERM or SIGINT: end at the next commit, leaving what the queue
    /// still holds to be mined again, so a slow sink cannot hold a stop.
    pub stop: Arc<AtomicBool>,
    /// The output's name, for the rotation notice.
    pub output: String,
    /// The event after which the output was last reopened.
    pub rotated_after: Option<EventPosition>,
    /// Events made durable so far, for the status line.
    pub durable: Arc<AtomicU64>,
    pub bound: CommitBound,
    pub reporter: &'a dyn Reporter,
}

impl SinkStage<'_> {
    /// Delivers what arrives until the engine stage hangs up.
    ///
    /// Commits are grouped: a commit whose successors are already queued,
    /// or arrive while the group is younger than a few times what the last
    /// commit took, waits for them (up to [`GROUP_EVENTS`] events or
    /// [`GROUP_WINDOW`]), and the last checkpoint of the group is stored
    /// after one flush and fsync, or one Kafka transaction. A sink whose
    /// commits are slow (a transaction's round trips) thus pays them once
    /// per group, not once per window, while a quiet source's window is
    /// committed a few commit lengths after its first event. A snapshot
    /// chunk's rows are never grouped with what came before or after them.
    /// A window larger than [`CommitBound`] is committed in parts. Once
    /// the run is stopped, the stage ends at the first commit: the events
    /// still queued are not in any checkpoint, and a restart mines them
    /// again.
    pub fn run(mut self, queue: &Receiver<ToSink>) -> Result<Delivered, Undelivered> {
        let mut group = Group::default();
        loop {
            if self.stop.load(Ordering::Relaxed) && group.pending.is_none() && group.events == 0 {
                break;
            }
            match queue.recv_timeout(TICK) {
                Ok(message) => {
                    self.take(message, &mut group)?;
                    while group.pending.is_some()
                        && !group.must_commit(self.bound.events)
                        && !self.stop.load(Ordering::Relaxed)
                    {
                        let Ok(next) = queue.recv_timeout(group.wait_for_more()) else {
                            break;
                        };
                        self.take(next, &mut group)?;
                    }
                    self.commit_group(&mut group)?;
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            self.commit_part_when_due(&mut group)?;
        }
        Ok(Delivered {
            skipped: self.sink.skipped_duplicates(),
            schema_changes_left_out: self.sink.schema_changes_left_out(),
        })
    }

    /// Makes the group's pending commit durable, if it has one.
    fn commit_group(&mut self, group: &mut Group) -> Result<(), Undelivered> {
        if let Some(commit) = group.pending.take() {
            let committing = Instant::now();
            self.commit(*commit, &mut group.tally)?;
            group.last_commit = committing.elapsed();
            self.durable.store(group.written, Ordering::Relaxed);
            group.started = None;
            group.events = 0;
            group.snapshot_rows = false;
        }
        Ok(())
    }

    /// Commits the events of a window so far with its resume point, once
    /// they are more than one commit may hold or it has been open too long.
    fn commit_part_when_due(&mut self, group: &mut Group) -> Result<(), Undelivered> {
        if group.pending.is_some() || group.events == 0 {
            return Ok(());
        }
        let Some(resume) = group.resume_point.as_deref() else {
            return Ok(());
        };
        let open_too_long = match (self.bound.open_for, group.started) {
            (Some(limit), Some(started)) => started.elapsed() >= limit,
            _ => false,
        };
        if group.events < self.bound.events && !open_too_long {
            return Ok(());
        }
        let mut checkpoint = resume.clone();
        tracing::debug!(
            events = group.events,
            "committing part of a window with its resume point"
        );
        self.make_durable(Some(&mut checkpoint))?;
        self.durable.store(group.written, Ordering::Relaxed);
        group.started = None;
        group.events = 0;
        Ok(())
    }

    /// Writes a batch, or holds a commit as the group's latest.
    fn take(&mut self, message: ToSink, group: &mut Group) -> Result<(), Undelivered> {
        match message {
            ToSink::Events(batch) => {
                let rows = batch.iter().any(is_snapshot_row);
                if rows {
                    // A chunk's rows follow a durable commit, never a group.
                    self.commit_group(group)?;
                }
                group.snapshot_rows |= rows;
                for event in &batch {
                    self.sink.write(event).map_err(|e| failure(&e))?;
                    group.after_pending.count(event);
                }
                group.written += batch.len() as u64;
                group.events += batch.len();
                group.started.get_or_insert_with(Instant::now);
            }
            // A later commit covers everything an earlier one did.
            ToSink::Commit(commit) => {
                group.pending = Some(commit);
                group.resume_point = None;
                group.tally.absorb(std::mem::take(&mut group.after_pending));
            }
            ToSink::ResumePoint(checkpoint) => group.resume_point = Some(checkpoint),
        }
        Ok(())
    }

    /// Events first, then the checkpoint that covers them (in one
    /// transaction when the sink keeps the checkpoint).
    fn commit(&mut self, commit: Commit, tally: &mut Tally) -> Result<(), Undelivered> {
        let mut checkpoint = commit.checkpoint;
        self.make_durable(checkpoint.as_mut())?;
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

    /// Makes everything written durable, then stores `checkpoint` (with
    /// the output's last event, rotation and mark) when there is one.
    fn make_durable(&mut self, mut checkpoint: Option<&mut Checkpoint>) -> Result<(), Undelivered> {
        if let Some(cp) = checkpoint.as_deref_mut() {
            cp.last_event = self.sink.last_position();
            cp.rotated_after.clone_from(&self.rotated_after);
        }
        let committing = Instant::now();
        let committed = match &self.store {
            Some(_) => self.sink.commit(),
            None => self.sink.commit_with(checkpoint.as_deref()),
        };
        self.telemetry
            .sink_committed(committing.elapsed(), self.sink.in_flight());
        committed.map_err(|e| failure(&e))?;
        if self.hangup.swap(false, Ordering::Relaxed) {
            self.reopen(checkpoint.as_deref_mut())?;
        }
        if let Some(cp) = checkpoint.as_deref_mut() {
            // What the file holds now, committed: a restart proves the file
            // it appends to begins with exactly this.
            cp.output = self.sink.output_mark().map_err(|e| failure(&e))?;
        }
        if let (Some(store), Some(cp)) = (&self.store, checkpoint.as_deref()) {
            store
                .save(cp)
                .map_err(|e| Undelivered::Failed(DaemonError::usage(format!("checkpoint: {e}"))))?;
        }
        Ok(())
    }

    /// Reopens the output after logrotate moved it away, once everything
    /// written is committed; the checkpoint about to be stored records it.
    fn reopen(&mut self, checkpoint: Option<&mut Checkpoint>) -> Result<(), Undelivered> {
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
