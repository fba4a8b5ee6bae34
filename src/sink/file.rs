//! The file sink: JSON lines (one Debezium envelope per line) appended to
//! a file, or written to stdout, a device or a pipe.
//!
//! A file is the sink's own record of what it holds: at open a torn last
//! line (a crash mid-write) is cut, the last line names the last event
//! written (a last line that is no event is refused: the file's position
//! is unknown), and the file is locked by the open file itself, so two
//! runs cannot write one file under two names. At each commit the sink can
//! give the file's length and the hash of its last bytes ([`OutputMark`]),
//! which the checkpoint stores: a restart proves the file still begins with
//! what was written.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::engine::checkpoint::{content_hash, EventPosition, OutputMark};
use crate::engine::event::{payload_of, CapturedEvent, ColumnKinds, ValueForms, SNAPSHOT_XID};

use super::{event_key, EventKey, EventSink, ResumeAfter, SinkError};

/// Bytes of the file's end an [`OutputMark`] hashes.
const MARK_TAIL: u64 = 4096;

/// JSON lines to a file (appended) or to stdout.
pub struct JsonLinesSink {
    out: BufWriter<Box<dyn Write + Send>>,
    file: Option<File>,
    path: Option<PathBuf>,
    label: String,
    resume: ResumeAfter,
    /// The last event in the file: its last line at open, then each write.
    last: Option<EventKey>,
    /// The file's length, with what is written but not flushed yet.
    len: u64,
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
            len: 0,
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
    /// lines; [`Self::torn_bytes_cut`] tells how much was cut. A file that
    /// another open file (another run, perhaps under another name) holds
    /// locked, or whose last line is no event, is refused.
    pub fn file(path: &Path) -> Result<Self, SinkError> {
        let label = path.display().to_string();
        let io_err = |source| SinkError::Io {
            path: label.clone(),
            source,
        };
        let mut file = open_locked(path)?;
        let torn_bytes_cut = cut_torn_tail(&mut file).map_err(io_err)?;
        let resume_after = match last_line(&mut file).map_err(io_err)? {
            None => None,
            Some((offset, line)) => {
                Some(parse_event_key(&line).ok_or_else(|| SinkError::Unreadable {
                    path: label.clone(),
                    offset,
                    line: line.chars().take(80).collect(),
                })?)
            }
        };
        let len = file.seek(SeekFrom::End(0)).map_err(io_err)?;
        let writer = file.try_clone().map_err(io_err)?;
        Ok(Self {
            out: BufWriter::with_capacity(1 << 16, Box::new(writer)),
            file: Some(file),
            path: Some(path.to_path_buf()),
            label,
            last: resume_after.clone(),
            resume: ResumeAfter::new(resume_after),
            len,
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
        self.len += line.len() as u64 + 1;
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
        let file = open_append(&path)?;
        if let Some(held) = &self.file {
            // Not moved away (a SIGHUP for another reason): the file held,
            // and its lock, stay.
            if same_file(held, &file).map_err(|e| self.io(e))? {
                return Ok(true);
            }
        }
        lock(&path, &file)?;
        let len = file.metadata().map_err(|e| self.io(e))?.len();
        let writer = file.try_clone().map_err(|e| self.io(e))?;
        self.out = BufWriter::with_capacity(1 << 16, Box::new(writer));
        self.file = Some(file);
        self.len = len;
        Ok(true)
    }

    fn output_mark(&self) -> Result<Option<OutputMark>, SinkError> {
        let Some(file) = &self.file else {
            return Ok(None);
        };
        let tail_bytes = self.len.min(MARK_TAIL);
        let tail = read_range(file, self.len - tail_bytes, tail_bytes).map_err(|e| self.io(e))?;
        Ok(Some(OutputMark {
            bytes: self.len,
            tail_bytes,
            tail_hash: content_hash(&tail),
        }))
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

/// The last non-empty line of the file, with the offset it starts at.
fn last_line(file: &mut File) -> io::Result<Option<(u64, String)>> {
    let len = file.seek(SeekFrom::End(0))?;
    if len == 0 {
        return Ok(None);
    }
    // The last event fits comfortably in the tail; envelopes are a few KiB.
    let start = len.saturating_sub(1 << 20);
    file.seek(SeekFrom::Start(start))?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail)?;
    let end = tail
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    if end == 0 {
        return Ok(None);
    }
    let begin = memchr::memrchr(b'\n', &tail[..end]).map_or(0, |i| i + 1);
    let line = String::from_utf8_lossy(&tail[begin..end])
        .trim()
        .to_string();
    Ok(Some((start + begin as u64, line)))
}

/// `len` bytes of `file` from `offset`.
pub(crate) fn read_range(file: &File, offset: u64, len: u64) -> io::Result<Vec<u8>> {
    let mut buf = vec![0u8; usize::try_from(len).unwrap_or(0)];
    file.read_exact_at(&mut buf, offset)?;
    Ok(buf)
}

/// Opens `path` for appending (and reading its end), locked by the open
/// file: the lock follows the file under any name, links included, and
/// goes with the process however it ends.
fn open_locked(path: &Path) -> Result<File, SinkError> {
    let file = open_append(path)?;
    lock(path, &file)?;
    Ok(file)
}

fn open_append(path: &Path) -> Result<File, SinkError> {
    OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(path)
        .map_err(|source| SinkError::Io {
            path: path.display().to_string(),
            source,
        })
}

fn lock(path: &Path, file: &File) -> Result<(), SinkError> {
    match super::lock::try_lock(file) {
        Ok(true) => Ok(()),
        Ok(false) => Err(SinkError::Busy {
            path: path.display().to_string(),
        }),
        Err(source) => Err(SinkError::Io {
            path: path.display().to_string(),
            source,
        }),
    }
}

/// Whether two open files are one file (device and inode).
fn same_file(a: &File, b: &File) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let (a, b) = (a.metadata()?, b.metadata()?);
    Ok(a.dev() == b.dev() && a.ino() == b.ino())
}

/// The last event of an output file, `None` when it is empty or its last
/// line is no event.
pub fn last_event_of(path: &Path) -> io::Result<Option<EventPosition>> {
    let mut file = File::open(path)?;
    Ok(last_line(&mut file)?.and_then(|(_, l)| parse_event_key(&l)))
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
        .and_then(|(_, l)| serde_json::from_str::<serde_json::Value>(&l).ok())
        .map(|v| payload_of(&v).clone())
        .filter(|v| v["op"] == "r"))
}

fn parse_event_key(line: &str) -> Option<EventKey> {
    let line = serde_json::from_str::<serde_json::Value>(line).ok()?;
    let v = payload_of(&line);
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
    // txId is the XID in lower case, as Debezium writes it; positions and
    // checkpoints hold it as LogMiner prints it, in upper case.
    let xid = v["source"]["txId"].as_str().map(str::to_ascii_uppercase);
    let order = v["transaction"]["total_order"].as_u64().unwrap_or(0);
    commit_scn.zip(xid).map(|(commit_scn, xid)| EventPosition {
        commit_scn,
        xid,
        order,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::event::SourcePosition;
    use crate::engine::event::{ChangeEvent, Field, Op, SnapshotMark};
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
            snapshot: SnapshotMark::Stream,
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

    /// txId is written in lower case (as Debezium writes it); read back,
    /// it must be the XID as LogMiner prints it, which checkpoints hold.
    #[test]
    fn the_last_events_position_reads_back_the_xid_the_engine_uses_issue32() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("out.jsonl");
        let mut s = JsonLinesSink::file(&path).expect("open");
        s.write(&event(10, "0A0014005D3C0000", 3)).expect("write");
        s.commit().expect("commit");
        drop(s);
        let last = last_event_of(&path).expect("read").expect("an event");
        assert_eq!(
            (last.commit_scn, last.xid.as_str(), last.order),
            (10, "0A0014005D3C0000", 4)
        );
    }

    /// A restart reads where an output written under its Kafka Connect
    /// schema ended, and drops the events it already holds.
    #[test]
    fn an_output_with_connect_schemas_is_resumed_like_a_bare_one_issue32() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("out.jsonl");
        let forms = ValueForms {
            envelope: crate::engine::event::EnvelopeForm::ConnectJson,
            ..ValueForms::default()
        };
        let open = || JsonLinesSink::file(&path).expect("open").with_forms(forms);
        let mut s = open();
        s.write(&event(10, "0A0014005D3C0000", 3)).expect("write");
        s.commit().expect("commit");
        drop(s);
        let last = last_event_of(&path).expect("read").expect("an event");
        assert_eq!((last.commit_scn, last.order), (10, 4));
        let mut s = open();
        s.write(&event(10, "0A0014005D3C0000", 3)).expect("write");
        s.commit().expect("commit");
        assert_eq!(s.skipped_duplicates(), 1);
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
