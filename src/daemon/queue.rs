//! The bounded queue from the engine stage to the sink stage, and its
//! engine-side end ([`Outbox`]): events in commit order, in batches, each
//! window closed by a [`Commit`] that carries the checkpoint covering it.
//! A full queue blocks the engine (back-pressure): memory stays at a few
//! batches however slow the sink.
//!
//! Events the destination already holds (a restart re-mines what was
//! written before a crash) are dropped here, before the queue, so that
//! `--count` and the snapshot's position count only what is written.

use std::sync::mpsc::{SyncSender, TrySendError};
use std::sync::Arc;

use crate::engine::checkpoint::{Checkpoint, EventPosition};
use crate::engine::emit::SinkError as EmitError;
use crate::engine::event::CapturedEvent;
use crate::engine::lob_memory::LobMemory;
use crate::engine::metrics::CaptureStatus;
use crate::engine::snapshot::SnapshotProgress;
use crate::sink::{event_key, ResumeAfter};
use crate::telemetry::{Telemetry, Volumes};

/// Events per batch on the queue.
pub const BATCH_EVENTS: usize = 1_024;
/// Messages the queue holds at most. A window sends a resume point, its
/// batches and a commit: 24 is eight windows of one batch, so a sink
/// pausing on an fsync or a transaction's round trips does not stop the
/// engine after two or three windows, and memory stays at 24 batches.
pub const QUEUE_DEPTH: usize = 24;

/// What the engine stage sends the sink stage.
pub enum ToSink {
    Events(Vec<CapturedEvent>),
    /// Make every event before it durable, then store its checkpoint.
    Commit(Box<Commit>),
    /// Where a restart resumes for the events that follow, until the next
    /// commit: the window's start. A window holding more than one sink
    /// commit may (a database transaction larger than a Kafka transaction
    /// may be) is committed in parts with it; a restart mines the window
    /// again and drops what the destination already holds.
    ResumePoint(Box<Checkpoint>),
}

/// The end of a window (or of a snapshot chunk).
pub struct Commit {
    /// Where a restart resumes once the events before are durable; `None`
    /// before the first window (the stored checkpoint stands). The sink
    /// stage adds what only it knows: the output's last event and its
    /// rotation.
    pub checkpoint: Option<Checkpoint>,
    /// The engine's state at this point, published once it is durable.
    pub status: CaptureStatus,
    pub volumes: Volumes,
    pub snapshot: Option<SnapshotProgress>,
}

/// The sink stage has stopped: its own result says why.
#[derive(Debug)]
pub struct SinkStopped;

/// The engine stage's end of the queue.
pub struct Outbox {
    tx: SyncSender<ToSink>,
    batch: Vec<CapturedEvent>,
    resume: ResumeAfter,
    /// The last event handed on, or the destination's last one at start.
    last: Option<EventPosition>,
    /// Events handed on (duplicates of the destination's not counted).
    written: u64,
    limit: u64,
    stopped: bool,
    lobs: Option<LobMemory>,
    /// Told when the engine starts and stops waiting on a full queue.
    telemetry: Option<Arc<Telemetry>>,
}

impl Outbox {
    /// `destination_last`: the last event the destination held at start.
    pub fn new(
        tx: SyncSender<ToSink>,
        destination_last: Option<EventPosition>,
        limit: u64,
    ) -> Self {
        Self {
            tx,
            batch: Vec::with_capacity(BATCH_EVENTS),
            resume: ResumeAfter::new(destination_last.clone()),
            last: destination_last,
            written: 0,
            limit,
            lobs: None,
            stopped: false,
            telemetry: None,
        }
    }

    /// Reports waits on a full queue to `telemetry`, so a sink that holds
    /// the engine back is named while it does.
    pub fn report_waits(&mut self, telemetry: Arc<Telemetry>) {
        self.telemetry = Some(telemetry);
    }

    /// Fills LOBs that events mark unavailable from the values `lobs`
    /// learns from the events before them.
    pub fn remember_lobs(&mut self, lobs: LobMemory) {
        self.lobs = Some(lobs);
    }

    /// Queues one event, unless the destination holds it already. Fails
    /// once `limit` events were written, or when the sink stage stopped.
    pub fn push(&mut self, mut event: CapturedEvent) -> Result<(), EmitError> {
        if self.written >= self.limit {
            return Err("event limit reached".into());
        }
        // Before the resume check: an event the destination holds already
        // still says what the row's LOBs are.
        if let Some(lobs) = self.lobs.as_mut() {
            lobs.apply(&mut event);
        }
        let key = event_key(&event);
        if !self.resume.admits(&key) {
            return Ok(());
        }
        self.last = Some(key);
        self.batch.push(event);
        self.written += 1;
        if self.batch.len() >= BATCH_EVENTS {
            self.flush().map_err(|SinkStopped| "the sink stopped")?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), SinkStopped> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let full = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH_EVENTS));
        self.send(ToSink::Events(full))
    }

    fn send(&mut self, message: ToSink) -> Result<(), SinkStopped> {
        if self.stopped {
            return Err(SinkStopped);
        }
        let sent = match self.tx.try_send(message) {
            Ok(()) => true,
            Err(TrySendError::Disconnected(_)) => false,
            Err(TrySendError::Full(message)) => {
                let waits = self.telemetry.as_deref();
                waits.inspect(|t| t.sink_waiting(true));
                let sent = self.tx.send(message).is_ok();
                waits.inspect(|t| t.sink_waiting(false));
                sent
            }
        };
        if !sent {
            self.stopped = true;
            return Err(SinkStopped);
        }
        Ok(())
    }

    /// Hands on the events queued so far and the commit that covers them.
    pub fn commit(&mut self, commit: Commit) -> Result<(), SinkStopped> {
        self.flush()?;
        self.send(ToSink::Commit(Box::new(commit)))
    }

    /// Says where a restart resumes for the events that follow.
    pub fn resume_point(&mut self, checkpoint: Checkpoint) -> Result<(), SinkStopped> {
        self.flush()?;
        self.send(ToSink::ResumePoint(Box::new(checkpoint)))
    }

    pub fn written(&self) -> u64 {
        self.written
    }

    pub fn limit_reached(&self) -> bool {
        self.written >= self.limit
    }

    /// Events dropped as already in the destination.
    pub fn skipped(&self) -> u64 {
        self.resume.skipped()
    }

    /// The position of the last event handed on, or the destination's.
    pub fn last(&self) -> Option<&EventPosition> {
        self.last.as_ref()
    }

    /// Whether the sink stage has stopped.
    pub fn stopped(&self) -> bool {
        self.stopped
    }
}
