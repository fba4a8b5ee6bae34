//! Checkpoints: the restart SCN, the commit SCN with the XIDs committed at
//! it, and the index of the last event emitted inside a transaction.
//!
//! The database incarnation (RESETLOGS_CHANGE# and RESETLOGS_TIME) is
//! stored with the positions: SCNs of another incarnation name other redo.
//!
//! Stored as versioned JSON (`"version": 1`), written atomically (temporary
//! file in the same directory, fsync, rename, fsync of the directory), and
//! only ever moved forward. [`ReplayFilter`] tells, after a restart, which
//! re-mined events were already emitted, so a replay emits nothing twice.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::port::Incarnation;
use super::row::Scn;

/// The checkpoint format this version of cdcctl writes and reads.
pub const CHECKPOINT_VERSION: u32 = 1;

/// A capture position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub version: u32,
    /// Mining restarts with the rows above this SCN.
    pub restart_scn: Scn,
    /// Highest commit SCN whose transaction was fully emitted.
    pub commit_scn: Scn,
    /// Every XID committed at `commit_scn` and fully emitted (several
    /// transactions can commit at one SCN, notably on RAC).
    pub committed_xids_at_commit_scn: Vec<String>,
    /// A transaction cut short (sink failure): its XID and the index of the
    /// last event emitted.
    pub last_event_index: Option<(String, u32)>,
    /// The database incarnation the positions belong to. Checkpoints
    /// written before it was recorded load without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incarnation: Option<Incarnation>,
    pub updated_at: DateTime<Utc>,
    /// Identity of the output this checkpoint belongs to; the output
    /// carries the same identity, so a foreign file is recognised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_id: Option<String>,
    /// The last event the output held when this checkpoint was stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_event: Option<EventPosition>,
    /// Earlier positions, oldest first, that a rewind can restart from when
    /// the output lost its tail.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rewind_points: Vec<RewindPoint>,
    /// The database the positions belong to (`source.db` of its events).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub db_name: Option<String>,
    /// The tables the capture was asked for, as typed (sorted; empty:
    /// every table), so a capture of other tables does not resume from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tables: Option<Vec<String>>,
    /// The source spec, when it alone names the database (a simulator
    /// scenario); never a connect string, which may hold secrets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// How far the initial snapshot got, per table; absent when the
    /// capture took none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<super::snapshot::SnapshotProgress>,
    /// The output file was reopened (rotated away, SIGHUP) after this
    /// event: an output that is empty is its continuation, not a loss.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotated_after: Option<EventPosition>,
    /// What the output file held when this checkpoint was stored: a
    /// restart proves the file it appends to begins with exactly that.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<OutputMark>,
    /// [`content_hash`] of the checkpoint's JSON without this field:
    /// a checkpoint changed after cdcctl wrote it is refused. Checkpoints
    /// written before it was recorded load without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
}

/// An output file's length and the hash of its last bytes, as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputMark {
    /// The file's length in bytes.
    pub bytes: u64,
    /// How many bytes before `bytes` the hash covers.
    pub tail_bytes: u64,
    /// [`content_hash`] of those bytes.
    pub tail_hash: String,
}

/// FNV-1a (64 bits) of `bytes` as 16 hex digits: a hash stable across
/// builds and platforms, for content cdcctl must recognise as its own.
pub fn content_hash(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Where an event stands in the stream: commit SCN, XID, and its 1-based
/// order in the transaction (0 for DDL).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct EventPosition {
    pub commit_scn: Scn,
    pub xid: String,
    pub order: u64,
}

/// A position capture could restart from, with nothing emitted past it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RewindPoint {
    pub restart_scn: Scn,
    pub commit_scn: Scn,
    pub committed_xids_at_commit_scn: Vec<String>,
}

impl Checkpoint {
    pub fn new(
        restart_scn: Scn,
        commit_scn: Scn,
        committed_xids_at_commit_scn: Vec<String>,
        last_event_index: Option<(String, u32)>,
    ) -> Self {
        Self {
            version: CHECKPOINT_VERSION,
            restart_scn,
            commit_scn,
            committed_xids_at_commit_scn,
            last_event_index,
            incarnation: None,
            updated_at: Utc::now(),
            stream_id: None,
            last_event: None,
            rewind_points: Vec::new(),
            db_name: None,
            tables: None,
            source: None,
            snapshot: None,
            rotated_after: None,
            output: None,
            checksum: None,
        }
    }

    /// The same position, recorded as belonging to `incarnation`.
    pub fn with_incarnation(mut self, incarnation: Option<Incarnation>) -> Self {
        self.incarnation = incarnation;
        self
    }

    /// This position as a rewind point, unless a transaction was cut short
    /// at it (then part of it was emitted past the point).
    pub fn rewind_point(&self) -> Option<RewindPoint> {
        self.last_event_index.is_none().then(|| RewindPoint {
            restart_scn: self.restart_scn,
            commit_scn: self.commit_scn,
            committed_xids_at_commit_scn: self.committed_xids_at_commit_scn.clone(),
        })
    }

    /// Reads a checkpoint from JSON text, refusing versions it does not know.
    pub fn from_json(text: &str) -> Result<Self, CheckpointError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| CheckpointError::Malformed(e.to_string()))?;
        match value.get("version").and_then(serde_json::Value::as_u64) {
            Some(v) if v == u64::from(CHECKPOINT_VERSION) => {}
            Some(v) => return Err(CheckpointError::UnknownVersion(v)),
            None => {
                return Err(CheckpointError::Malformed(
                    "no numeric \"version\" field".into(),
                ))
            }
        }
        let mut cp: Self =
            serde_json::from_value(value).map_err(|e| CheckpointError::Malformed(e.to_string()))?;
        if let Some(stored) = cp.checksum.take() {
            if cp.body_hash() != stored {
                return Err(CheckpointError::Changed);
            }
        }
        Ok(cp)
    }

    /// The checkpoint as JSON, with the checksum of its content.
    pub fn to_json(&self) -> String {
        let mut cp = self.clone();
        cp.checksum = Some(self.body_hash());
        // A struct of integers and strings always serialises.
        serde_json::to_string_pretty(&cp).unwrap_or_default()
    }

    /// The hash of the JSON of everything but the checksum.
    fn body_hash(&self) -> String {
        let mut body = self.clone();
        body.checksum = None;
        content_hash(
            serde_json::to_string_pretty(&body)
                .unwrap_or_default()
                .as_bytes(),
        )
    }
}

/// Why a checkpoint could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("checkpoint {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("checkpoint is not valid JSON of format version 1: {0}")]
    Malformed(String),
    #[error(
        "checkpoint has format version {0}, this cdcctl reads version 1; use the cdcctl that wrote it"
    )]
    UnknownVersion(u64),
    #[error(
        "its checksum does not match its content: it was changed after cdcctl wrote it (by \
         hand, or a damaged copy); restore the file cdcctl wrote, or remove it to start over"
    )]
    Changed,
    #[error("{0} is not a regular file (a directory, a pipe or a device); name a file")]
    NotAFile(PathBuf),
    #[error(
        "refusing to move the checkpoint backwards ({what} {new} is below the stored {stored}); \
         a second capture may be writing the same checkpoint file"
    )]
    Backwards {
        what: &'static str,
        stored: Scn,
        new: Scn,
    },
}

/// A checkpoint in a file.
#[derive(Debug, Clone)]
pub struct FileCheckpointStore {
    path: PathBuf,
}

impl FileCheckpointStore {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn io(&self, source: io::Error) -> CheckpointError {
        CheckpointError::Io {
            path: self.path.clone(),
            source,
        }
    }

    /// The stored checkpoint, or `None` when there is no file yet.
    pub fn load(&self) -> Result<Option<Checkpoint>, CheckpointError> {
        // Opening a pipe would wait for a writer forever.
        match fs::metadata(&self.path) {
            Ok(m) if !m.is_file() => return Err(CheckpointError::NotAFile(self.path.clone())),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(self.io(e)),
        }
        match crate::limits::read_text(&self.path, crate::limits::CHECKPOINT_BYTES) {
            Ok(text) => Checkpoint::from_json(&text).map(Some),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(self.io(e)),
        }
    }

    fn dir(&self) -> PathBuf {
        match self.path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }

    /// Names of the temporary files a save writes before its rename:
    /// `.<file name>.<random>.tmp`, so a killed save's leftover is ours to remove.
    fn temp_affixes(&self) -> (String, &'static str) {
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        (format!(".{name}."), ".tmp")
    }

    /// Removes the temporary files of saves interrupted by a crash; call it
    /// only while holding the checkpoint's writer lock. Returns how many.
    pub fn remove_stale_temp_files(&self) -> Result<usize, CheckpointError> {
        let (prefix, suffix) = self.temp_affixes();
        let entries = match fs::read_dir(self.dir()) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(self.io(e)),
        };
        let mut removed = 0;
        for entry in entries {
            let entry = entry.map_err(|e| self.io(e))?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with(&prefix)
                && name.ends_with(suffix)
                && name.len() > prefix.len() + suffix.len()
            {
                fs::remove_file(entry.path()).map_err(|e| self.io(e))?;
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Stores `cp` atomically, refusing to move either SCN backwards.
    pub fn save(&self, cp: &Checkpoint) -> Result<(), CheckpointError> {
        self.check_forward(cp)?;
        self.overwrite(cp)
    }

    fn check_forward(&self, cp: &Checkpoint) -> Result<(), CheckpointError> {
        if let Some(stored) = self.load()? {
            if cp.commit_scn < stored.commit_scn {
                return Err(CheckpointError::Backwards {
                    what: "commit SCN",
                    stored: stored.commit_scn,
                    new: cp.commit_scn,
                });
            }
            if cp.restart_scn < stored.restart_scn {
                return Err(CheckpointError::Backwards {
                    what: "restart SCN",
                    stored: stored.restart_scn,
                    new: cp.restart_scn,
                });
            }
        }
        Ok(())
    }

    /// Stores `cp` atomically whatever the stored one says (a deliberate
    /// rewind).
    pub fn overwrite(&self, cp: &Checkpoint) -> Result<(), CheckpointError> {
        let dir = self.dir();
        let (prefix, suffix) = self.temp_affixes();
        let mut tmp = tempfile::Builder::new()
            .prefix(&prefix)
            .suffix(suffix)
            .tempfile_in(&dir)
            .map_err(|e| self.io(e))?;
        tmp.write_all(cp.to_json().as_bytes())
            .and_then(|()| tmp.write_all(b"\n"))
            .and_then(|()| tmp.as_file().sync_all())
            .map_err(|e| self.io(e))?;
        tmp.persist(&self.path).map_err(|e| self.io(e.error))?;
        // The rename is durable only once the directory entry is.
        if let Ok(d) = File::open(&dir) {
            d.sync_all().map_err(|e| self.io(e))?;
        }
        Ok(())
    }
}

/// Tells, for a restart from a checkpoint, what was already emitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayFilter {
    commit_scn: Scn,
    committed: Vec<String>,
    partial: Option<(String, u32)>,
}

impl ReplayFilter {
    pub fn new(cp: &Checkpoint) -> Self {
        Self {
            commit_scn: cp.commit_scn,
            committed: cp.committed_xids_at_commit_scn.clone(),
            partial: cp.last_event_index.clone(),
        }
    }

    /// The whole transaction committed at `commit_scn` was emitted.
    pub fn transaction_done(&self, commit_scn: Scn, xid: &str) -> bool {
        commit_scn < self.commit_scn
            || (commit_scn == self.commit_scn && self.committed.iter().any(|x| x == xid))
    }

    /// Event `index` of transaction `xid` committed at `commit_scn` was emitted.
    pub fn already_emitted(&self, commit_scn: Scn, xid: &str, index: u32) -> bool {
        self.transaction_done(commit_scn, xid)
            || self
                .partial
                .as_ref()
                .is_some_and(|(x, last)| x == xid && index <= *last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cp(restart: Scn, commit: Scn, xids: &[&str], partial: Option<(&str, u32)>) -> Checkpoint {
        Checkpoint::new(
            restart,
            commit,
            xids.iter().map(|s| s.to_string()).collect(),
            partial.map(|(x, i)| (x.to_string(), i)),
        )
    }

    #[test]
    fn checkpoint_round_trips_through_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileCheckpointStore::new(dir.path().join("cp.json"));
        assert_eq!(store.load().unwrap(), None);
        let c = cp(99, 120, &["0A00", "0B00"], Some(("0C00", 3)));
        store.save(&c).unwrap();
        assert_eq!(store.load().unwrap(), Some(c));
        let text = fs::read_to_string(store.path()).unwrap();
        assert!(text.contains("\"version\": 1"));
    }

    #[test]
    fn store_refuses_to_move_commit_or_restart_scn_backwards() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileCheckpointStore::new(dir.path().join("cp.json"));
        store.save(&cp(100, 200, &[], None)).unwrap();
        let err = store.save(&cp(100, 199, &[], None)).unwrap_err();
        assert!(matches!(
            err,
            CheckpointError::Backwards {
                what: "commit SCN",
                stored: 200,
                new: 199
            }
        ));
        let err = store.save(&cp(99, 250, &[], None)).unwrap_err();
        assert!(matches!(
            err,
            CheckpointError::Backwards {
                what: "restart SCN",
                ..
            }
        ));
        // Equal positions (a save with nothing new) and forward moves are fine.
        store.save(&cp(100, 200, &["X"], None)).unwrap();
        store.save(&cp(150, 260, &[], None)).unwrap();
        assert_eq!(store.load().unwrap().map(|c| c.commit_scn), Some(260));
    }

    #[test]
    fn unknown_version_is_a_typed_error() {
        let mut v = serde_json::to_value(cp(1, 2, &[], None)).unwrap();
        v["version"] = 2.into();
        let err = Checkpoint::from_json(&v.to_string()).unwrap_err();
        assert!(matches!(err, CheckpointError::UnknownVersion(2)));
        assert!(matches!(
            Checkpoint::from_json("{}"),
            Err(CheckpointError::Malformed(_))
        ));
        assert!(matches!(
            Checkpoint::from_json("not json"),
            Err(CheckpointError::Malformed(_))
        ));
    }

    #[test]
    fn save_leaves_no_temporary_files_behind() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileCheckpointStore::new(dir.path().join("cp.json"));
        store.save(&cp(1, 2, &[], None)).unwrap();
        store.save(&cp(3, 4, &[], None)).unwrap();
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("cp.json")]);
    }

    #[test]
    fn filter_skips_earlier_commits_listed_xids_and_emitted_prefix() {
        let f = ReplayFilter::new(&cp(90, 100, &["A"], Some(("C", 2))));
        assert!(f.transaction_done(99, "Z"));
        assert!(f.transaction_done(100, "A"));
        assert!(!f.transaction_done(100, "B"));
        assert!(!f.transaction_done(101, "A"));
        assert!(f.already_emitted(105, "C", 0));
        assert!(f.already_emitted(105, "C", 2));
        assert!(!f.already_emitted(105, "C", 3));
        assert!(!f.already_emitted(105, "D", 0));
    }

    #[test]
    fn issue31_a_checkpoint_changed_after_it_was_written_is_refused() {
        let text = cp(99, 120, &["0A00"], None).to_json();
        assert!(text.contains("\"checksum\""), "{text}");
        assert!(Checkpoint::from_json(&text).is_ok());
        let edited = text.replace("\"commit_scn\": 120", "\"commit_scn\": 8120");
        assert_ne!(edited, text);
        assert!(matches!(
            Checkpoint::from_json(&edited),
            Err(CheckpointError::Changed)
        ));
        // Whitespace and key order are not content.
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(Checkpoint::from_json(&v.to_string()).is_ok());
        // A checkpoint written before checksums loads as it is.
        let mut old = v.clone();
        old.as_object_mut().unwrap().remove("checksum");
        assert!(Checkpoint::from_json(&old.to_string()).is_ok());
    }

    #[test]
    fn issue31_a_checkpoint_path_that_is_no_regular_file_is_refused_without_reading() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("cp.json");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo touches nothing else.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let store = FileCheckpointStore::new(&fifo);
        assert!(matches!(store.load(), Err(CheckpointError::NotAFile(_))));
        let store = FileCheckpointStore::new(dir.path());
        assert!(matches!(store.load(), Err(CheckpointError::NotAFile(_))));
    }
}
