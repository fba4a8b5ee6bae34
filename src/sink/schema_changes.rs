//! Where schema-change (DDL) events go: with the row changes (as the file
//! sink always did), nowhere, or to a file of their own, as Debezium sends
//! them to a schema-change topic apart from the tables' topics. A consumer
//! that reads the output as one table's changelog (Flink's `debezium-json`)
//! cannot read a DDL envelope.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use crate::engine::checkpoint::{Checkpoint, EventPosition};
use crate::engine::event::{CapturedEvent, ColumnKinds};

use super::{EventSink, JsonLinesSink, SinkError};

/// What `--schema-changes` asked for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum SchemaChanges {
    /// In the output, between the row changes, in commit order.
    #[default]
    Inline,
    /// Left out of the output; counted.
    Skip,
    /// Appended to this file as JSON lines (deduplicated on restart like
    /// the output).
    File(PathBuf),
}

impl FromStr for SchemaChanges {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "" => Err("an empty value: write inline, skip or a file path".into()),
            "inline" => Ok(Self::Inline),
            "skip" => Ok(Self::Skip),
            path => Ok(Self::File(PathBuf::from(path))),
        }
    }
}

/// A sink that routes DDL events as [`SchemaChanges`] says and passes row
/// changes to the sink it wraps.
pub struct SchemaChangeRouter {
    inner: Box<dyn EventSink>,
    side: Option<JsonLinesSink>,
    skip: bool,
    left_out: u64,
}

impl SchemaChangeRouter {
    /// Wraps `inner`; opens the side file for [`SchemaChanges::File`].
    pub fn new(inner: Box<dyn EventSink>, mode: &SchemaChanges) -> Result<Self, SinkError> {
        let side = match mode {
            SchemaChanges::File(p) => Some(JsonLinesSink::file(Path::new(p))?),
            _ => None,
        };
        Ok(Self {
            inner,
            side,
            skip: *mode == SchemaChanges::Skip,
            left_out: 0,
        })
    }
}

impl EventSink for SchemaChangeRouter {
    fn write(&mut self, event: &CapturedEvent) -> Result<(), SinkError> {
        match (event, self.side.as_mut()) {
            (CapturedEvent::Ddl(_), Some(side)) => side.write(event),
            (CapturedEvent::Ddl(_), None) if self.skip => {
                self.left_out += 1;
                Ok(())
            }
            _ => self.inner.write(event),
        }
    }

    fn commit(&mut self) -> Result<(), SinkError> {
        self.commit_with(None)
    }

    // The side file first: the checkpoint the inner sink may store with its
    // events must never get ahead of a DDL line.
    fn commit_with(&mut self, checkpoint: Option<&Checkpoint>) -> Result<(), SinkError> {
        if let Some(side) = self.side.as_mut() {
            side.commit()?;
        }
        self.inner.commit_with(checkpoint)
    }

    fn skipped_duplicates(&self) -> u64 {
        self.inner.skipped_duplicates() + self.side.as_ref().map_or(0, |s| s.skipped_duplicates())
    }

    fn keeps_checkpoint(&self) -> bool {
        self.inner.keeps_checkpoint()
    }

    fn in_flight(&self) -> u64 {
        self.inner.in_flight()
    }

    fn last_position(&self) -> Option<EventPosition> {
        self.inner.last_position()
    }

    fn set_column_kinds(&mut self, kinds: Arc<ColumnKinds>) {
        self.inner.set_column_kinds(kinds);
    }

    fn schema_changes_left_out(&self) -> u64 {
        self.left_out
    }

    fn output_mark(&self) -> Result<Option<crate::engine::checkpoint::OutputMark>, SinkError> {
        self.inner.output_mark()
    }

    fn reopen(&mut self) -> Result<bool, SinkError> {
        if let Some(side) = self.side.as_mut() {
            side.reopen()?;
        }
        self.inner.reopen()
    }
}
