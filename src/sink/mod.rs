//! Where `run` writes events: JSON lines (one Debezium envelope per line)
//! to stdout or a file ([`file`]), or Kafka ([`kafka`]), behind one trait.
//!
//! Delivery contract: `write` may buffer; `commit` makes everything written
//! so far durable, and only after it returns may the caller advance the
//! checkpoint. A crash between the two leaves events in the destination
//! that the checkpoint does not know of; on reopen the sink names its last
//! event ([`EventSink::last_position`]) and events up to that (commit SCN,
//! XID, index) are dropped ([`ResumeAfter`]), so the destination holds each
//! change exactly once.

pub mod file;
pub mod kafka;
pub mod lock;
pub mod schema_changes;
pub mod stream;

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::engine::checkpoint::{Checkpoint, EventPosition, OutputMark};
use crate::engine::event::{CapturedEvent, ColumnKinds, Op, SNAPSHOT_XID};

pub use file::{last_snapshot_row, JsonLinesSink};

/// Why a sink failed.
#[derive(Debug, thiserror::Error)]
pub enum SinkError {
    #[error("cannot write to {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
    #[error("kafka: {message}")]
    Kafka { message: String },
    /// One event is larger than the destination takes.
    #[error("kafka: {message}")]
    TooLarge { message: String },
    /// The destination did not answer; nothing was decided on a guess.
    #[error("{message}")]
    Unreachable { message: String },
    #[error("output {path} is in use by another cdcctl (the same file, perhaps under another name or a link); stop it first, or use another file")]
    Busy { path: String },
    #[error("the last line of {path} (at byte {offset}) is not an event cdcctl wrote, so where the output ends is unknown: `{line}`")]
    Unreadable {
        path: String,
        offset: u64,
        line: String,
    },
}

/// A destination for committed events.
pub trait EventSink: Send {
    /// Queues one event; events arrive in commit order.
    fn write(&mut self, event: &CapturedEvent) -> Result<(), SinkError>;
    /// Makes everything written durable.
    fn commit(&mut self) -> Result<(), SinkError>;
    /// Events dropped because the destination already held them.
    fn skipped_duplicates(&self) -> u64 {
        0
    }
    /// Makes everything written durable together with `checkpoint` when the
    /// destination stores the checkpoint itself ([`Self::keeps_checkpoint`]);
    /// otherwise the same as [`Self::commit`] and the caller stores it.
    fn commit_with(&mut self, checkpoint: Option<&Checkpoint>) -> Result<(), SinkError> {
        let _ = checkpoint;
        self.commit()
    }
    /// Whether the destination stores the checkpoint in the same atomic
    /// write as the events (then no checkpoint file is written).
    fn keeps_checkpoint(&self) -> bool {
        false
    }
    /// How long a commit may stay open before the destination gives up on
    /// it (a Kafka transaction's timeout); `None`: as long as it takes.
    fn commit_deadline(&self) -> Option<std::time::Duration> {
        None
    }
    /// Messages handed over and not yet acknowledged by the destination.
    fn in_flight(&self) -> u64 {
        0
    }
    /// The last event the destination holds, when it can tell.
    fn last_position(&self) -> Option<EventPosition> {
        None
    }
    /// The dictionary's column kinds, known once the source is open: they
    /// decide how `--decimal-handling` and `--time-precision` apply.
    fn set_column_kinds(&mut self, _kinds: Arc<ColumnKinds>) {}
    /// Closes and opens the output again by its name (after logrotate moved
    /// it away), once everything written is committed; whether there was a
    /// file to reopen.
    fn reopen(&mut self) -> Result<bool, SinkError> {
        Ok(false)
    }
    /// Schema-change events left out on purpose (`--schema-changes skip`).
    fn schema_changes_left_out(&self) -> u64 {
        0
    }
    /// What the output file holds once committed (its length and the hash
    /// of its end), for the checkpoint; `None` for a destination that is
    /// no file of ours.
    fn output_mark(&self) -> Result<Option<OutputMark>, SinkError> {
        Ok(None)
    }
}

/// Position of an event for de-duplication.
pub(crate) type EventKey = EventPosition;

/// Drops the events a destination already holds: after a restart the
/// engine re-mines from the checkpoint and emits again what was written
/// before a crash, up to the destination's last event. Events arrive in
/// commit order, so the first one past it ends the dropping.
#[derive(Debug, Clone, Default)]
pub struct ResumeAfter {
    after: Option<EventKey>,
    skipped: u64,
}

impl ResumeAfter {
    /// Drops events at or before `last` (the destination's last event).
    pub fn new(last: Option<EventKey>) -> Self {
        Self {
            after: last,
            skipped: 0,
        }
    }

    /// Whether `key` is new to the destination.
    pub fn admits(&mut self, key: &EventKey) -> bool {
        if let Some(last) = &self.after {
            if key <= last {
                self.skipped += 1;
                return false;
            }
            self.after = None;
        }
        true
    }

    /// Events dropped so far.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }
}

/// The position that orders and identifies an event in every sink.
pub fn event_key(event: &CapturedEvent) -> EventKey {
    match event {
        CapturedEvent::Change(c) if c.op == Op::Read => EventPosition {
            commit_scn: c.source.scn,
            xid: SNAPSHOT_XID.into(),
            order: u64::from(c.index),
        },
        CapturedEvent::Change(c) => EventPosition {
            commit_scn: c.source.commit_scn,
            xid: c.source.xid.clone(),
            order: u64::from(c.index) + 1,
        },
        CapturedEvent::Ddl(d) => EventPosition {
            commit_scn: d.source.commit_scn,
            xid: d.source.xid.clone(),
            order: 0,
        },
    }
}

/// Appends rows the engine could not parse (with `--on-parse-error warn`)
/// to a file, one JSON object per line.
pub struct DeadLetterFile {
    path: PathBuf,
    out: BufWriter<File>,
}

impl DeadLetterFile {
    pub fn open(path: &Path) -> Result<Self, SinkError> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|source| SinkError::Io {
                path: path.display().to_string(),
                source,
            })?;
        Ok(Self {
            path: path.to_path_buf(),
            out: BufWriter::new(file),
        })
    }

    pub fn write(&mut self, letter: &crate::engine::txn::DeadLetter) -> Result<(), SinkError> {
        let v = serde_json::json!({
            "scn": letter.scn.to_string(),
            "commit_scn": letter.commit_scn.to_string(),
            "xid": letter.xid,
            "error": letter.message,
            "position": letter.position,
            "raw": letter.raw,
        });
        writeln!(self.out, "{v}")
            .and_then(|()| self.out.flush())
            .map_err(|source| SinkError::Io {
                path: self.path.display().to_string(),
                source,
            })
    }
}
