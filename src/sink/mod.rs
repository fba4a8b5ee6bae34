//! Where `run` writes events: JSON lines (one Debezium envelope per line) to
//! stdout or to a file.
//!
//! Delivery contract: `write` may buffer; `commit` makes everything written
//! so far durable, and only after it returns may the caller advance the
//! checkpoint. A crash between the two leaves events in the file that the
//! checkpoint does not know of; on reopen the file sink reads its own last
//! line and drops events up to that (commit SCN, XID, index), so the file
//! holds each change exactly once.

pub mod kafka;
pub mod lock;
pub mod schema_changes;
pub mod stream;

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::engine::checkpoint::{Checkpoint, EventPosition};
use crate::engine::event::{CapturedEvent, ColumnKinds, Op, ValueForms, SNAPSHOT_XID};

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
}

/// Position of an event for de-duplication.
type EventKey = EventPosition;

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

/// JSON lines to a file (appended) or to stdout.
pub struct JsonLinesSink {
    out: BufWriter<Box<dyn Write + Send>>,
    file: Option<File>,
    path: Option<PathBuf>,
    label: String,
    resume: ResumeAfter,
    /// The last event in the file: its last line at open, then each write.
    last: Option<EventKey>,
    torn_bytes_cut: u64,
    forms: ValueForms,
    kinds: Option<Arc<ColumnKinds>>,
}

impl JsonLinesSink {
    /// Writes values in these forms (binary handling) from now on.
    pub fn with_forms(mut self, forms: ValueForms) -> Self {
        self.forms = forms;
        self
    }

    pub fn stdout() -> Self {
        Self {
            out: BufWriter::with_capacity(1 << 16, Box::new(io::stdout())),
            file: None,
            path: None,
            label: "stdout".into(),
            resume: ResumeAfter::default(),
            last: None,
            torn_bytes_cut: 0,
            forms: ValueForms::default(),
            kinds: None,
        }
    }

    /// Writes to a device or a named pipe (`/dev/null`, a FIFO): no
    /// resume from its end and no sync, which such files cannot do.
    pub fn stream(path: &Path) -> Result<Self, SinkError> {
        let label = path.display().to_string();
        let writer = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|source| SinkError::Io {
                path: label.clone(),
                source,
            })?;
        Ok(Self {
            out: BufWriter::with_capacity(1 << 16, Box::new(writer)),
            label,
            ..Self::stdout()
        })
    }

    /// Opens `path` for appending; if it already holds events, later writes
    /// skip everything up to its last one. A torn last line (a crash or a
    /// full disk mid-write) is cut off first, so the file stays valid JSON
    /// lines; [`Self::torn_bytes_cut`] tells how much was cut.
    pub fn file(path: &Path) -> Result<Self, SinkError> {
        let label = path.display().to_string();
        let io_err = |source| SinkError::Io {
            path: label.clone(),
            source,
        };
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)
            .map_err(io_err)?;
        let torn_bytes_cut = cut_torn_tail(&mut file).map_err(io_err)?;
        let resume_after = last_event_key(&mut file).map_err(io_err)?;
        let writer = file.try_clone().map_err(io_err)?;
        Ok(Self {
            out: BufWriter::with_capacity(1 << 16, Box::new(writer)),
            file: Some(file),
            path: Some(path.to_path_buf()),
            label,
            last: resume_after.clone(),
            resume: ResumeAfter::new(resume_after),
            torn_bytes_cut,
            forms: ValueForms::default(),
            kinds: None,
        })
    }

    /// Bytes of a torn last line removed when the file was opened.
    pub fn torn_bytes_cut(&self) -> u64 {
        self.torn_bytes_cut
    }

    fn io(&self, source: io::Error) -> SinkError {
        SinkError::Io {
            path: self.label.clone(),
            source,
        }
    }
}

impl EventSink for JsonLinesSink {
    fn write(&mut self, event: &CapturedEvent) -> Result<(), SinkError> {
        let key = event_key(event);
        if !self.resume.admits(&key) {
            return Ok(());
        }
        let line = event.to_json_line_typed(self.forms, self.kinds.as_deref());
        self.out
            .write_all(line.as_bytes())
            .and_then(|()| self.out.write_all(b"\n"))
            .map_err(|e| self.io(e))?;
        self.last = Some(key);
        Ok(())
    }

    fn commit(&mut self) -> Result<(), SinkError> {
        self.out.flush().map_err(|e| self.io(e))?;
        if let Some(f) = &self.file {
            f.sync_data().map_err(|e| self.io(e))?;
        }
        Ok(())
    }

    fn skipped_duplicates(&self) -> u64 {
        self.resume.skipped()
    }

    fn last_position(&self) -> Option<EventPosition> {
        self.last.clone()
    }

    fn set_column_kinds(&mut self, kinds: Arc<ColumnKinds>) {
        self.kinds = Some(kinds);
    }

    fn reopen(&mut self) -> Result<bool, SinkError> {
        let Some(path) = self.path.clone() else {
            return Ok(false);
        };
        self.commit()?;
        let file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(&path)
            .map_err(|e| self.io(e))?;
        let writer = file.try_clone().map_err(|e| self.io(e))?;
        self.out = BufWriter::with_capacity(1 << 16, Box::new(writer));
        self.file = Some(file);
        Ok(true)
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

/// Truncates the file after its last newline when it does not end with
/// one, makes the cut durable, and returns the number of bytes cut.
fn cut_torn_tail(file: &mut File) -> io::Result<u64> {
    let len = file.seek(SeekFrom::End(0))?;
    let mut end = len;
    let mut buf = vec![0u8; 1 << 16];
    // Walk back in chunks: a torn line is usually short, but nothing bounds it.
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let chunk = &mut buf[..usize::try_from(end - start).unwrap_or(0)];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(chunk)?;
        if end == len && chunk.last() == Some(&b'\n') {
            return Ok(0);
        }
        if let Some(i) = memchr::memrchr(b'\n', chunk) {
            end = start + i as u64 + 1;
            break;
        }
        end = start;
    }
    if end == len {
        return Ok(0);
    }
    file.set_len(end)?;
    file.sync_all()?;
    Ok(len - end)
}

/// Reads the key of the last line of a JSON-lines file that ends with a
/// newline.
fn last_event_key(file: &mut File) -> io::Result<Option<EventKey>> {
    Ok(last_line(file)?.as_deref().and_then(parse_event_key))
}

/// The last non-empty line of the file.
fn last_line(file: &mut File) -> io::Result<Option<String>> {
    let len = file.seek(SeekFrom::End(0))?;
    if len == 0 {
        return Ok(None);
    }
    // The last event fits comfortably in the tail; envelopes are a few KiB.
    let start = len.saturating_sub(1 << 20);
    file.seek(SeekFrom::Start(start))?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail)?;
    let text = String::from_utf8_lossy(&tail);
    Ok(text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(str::to_string))
}

/// The last event of an output file as JSON, when it is a row read by a
/// snapshot: a restart resumes the snapshot after it. `None` for a
/// missing or empty file, or a last event that is a change.
pub fn last_snapshot_row(path: &Path) -> io::Result<Option<serde_json::Value>> {
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    Ok(last_line(&mut file)?
        .and_then(|l| serde_json::from_str::<serde_json::Value>(&l).ok())
        .filter(|v| v["op"] == "r"))
}

fn parse_event_key(line: &str) -> Option<EventKey> {
    let v = serde_json::from_str::<serde_json::Value>(line).ok()?;
    if v["op"] == "r" {
        let scn = v["source"]["scn"].as_str().and_then(|s| s.parse().ok())?;
        let chunk = v["source"]["snapshot_chunk"].as_u64()?;
        return Some(EventPosition {
            commit_scn: scn,
            xid: SNAPSHOT_XID.into(),
            order: chunk,
        });
    }
    let commit_scn = v["source"]["commit_scn"]
        .as_str()
        .and_then(|s| s.parse().ok());
    let xid = v["source"]["txId"].as_str().map(str::to_string);
    let order = v["transaction"]["total_order"].as_u64().unwrap_or(0);
    commit_scn.zip(xid).map(|(commit_scn, xid)| EventPosition {
        commit_scn,
        xid,
        order,
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::event::{ChangeEvent, Field, Op, SourcePosition};
    use crate::engine::row::Scn;

    fn event(commit_scn: Scn, xid: &str, index: u32) -> CapturedEvent {
        CapturedEvent::Change(ChangeEvent {
            op: Op::Create,
            before: None,
            after: Some(vec![("ID".into(), Field::text(index.to_string()))].into()),
            source: SourcePosition {
                xid: xid.into(),
                commit_scn,
                scn: commit_scn - 1,
                ..SourcePosition::default()
            },
            snapshot: false,
            partial: false,
            commit_ts_ms: 0,
            index,
            table_order: index + 1,
        })
    }

    #[test]
    fn reopened_file_drops_events_it_already_holds() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("out.jsonl");
        let mut s = JsonLinesSink::file(&path).expect("open");
        for e in [event(10, "A", 0), event(10, "A", 1), event(12, "B", 0)] {
            s.write(&e).expect("write");
        }
        s.commit().expect("commit");
        drop(s);
        // A restart from an older checkpoint re-emits 10/A/1 and 12/B/0.
        let mut s = JsonLinesSink::file(&path).expect("reopen");
        for e in [event(10, "A", 1), event(12, "B", 0), event(15, "C", 0)] {
            s.write(&e).expect("write");
        }
        s.commit().expect("commit");
        assert_eq!(s.skipped_duplicates(), 2);
        let text = std::fs::read_to_string(&path).expect("read");
        assert_eq!(text.lines().count(), 4);
    }

    #[test]
    fn torn_last_line_is_cut_before_appending() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("out.jsonl");
        std::fs::write(&path, "{\"before\":null,\"aft").expect("write");
        let mut s = JsonLinesSink::file(&path).expect("open");
        assert_eq!(s.torn_bytes_cut(), 19);
        s.write(&event(5, "A", 0)).expect("write");
        s.commit().expect("commit");
        assert_eq!(s.skipped_duplicates(), 0);
        let text = std::fs::read_to_string(&path).expect("read");
        assert_eq!(text.lines().count(), 1, "{text}");
        let last = text.lines().last().expect("a line");
        assert!(
            serde_json::from_str::<serde_json::Value>(last).is_ok(),
            "{text}"
        );
    }
}
