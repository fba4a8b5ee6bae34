//! The status document a running `cdcctl run` publishes about itself: a
//! file next to its checkpoint (`CHECKPOINT.status`, replaced atomically
//! every few seconds) and `/status.json` on its `--metrics` address, which
//! `cdcctl status` reads.

use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::engine::lag_cause::Diagnosis;
use crate::engine::metrics::{CaptureStatus, MiningFigures, MiningState};
use crate::engine::snapshot::SnapshotProgress;

/// An open transaction as `status` shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenTxn {
    pub xid: String,
    pub start_scn: u64,
    pub start_time: Option<NaiveDateTime>,
    /// Redo time since it began.
    pub age_seconds: Option<i64>,
    pub events: u64,
    pub bytes: u64,
    pub spilled: bool,
}

/// What the daemon publishes about itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DaemonReport {
    pub pid: u32,
    /// connecting, mining, idle, retrying, stopped or finished.
    pub state: String,
    pub error: Option<String>,
    pub sink: String,
    pub started_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub checkpoint_at: Option<DateTime<Utc>>,
    pub current_scn: u64,
    pub mined_scn: u64,
    pub commit_scn: u64,
    pub restart_scn: u64,
    pub lag_scns: u64,
    /// Lag at the last checkpoint: database time minus the redo time of
    /// the last mined row.
    pub lag_seconds: Option<i64>,
    pub events_written: u64,
    pub events_per_second: f64,
    pub rows_per_second: f64,
    pub open_transactions: usize,
    pub oldest_open: Option<OpenTxn>,
    pub largest_open: Option<OpenTxn>,
    /// The initial snapshot's progress while the run takes one (and its
    /// final state once done): read from here, `status` needs no local
    /// checkpoint (the Kafka sink keeps its checkpoint in Kafka).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<SnapshotProgress>,
    /// Why capture is behind (or that it keeps up), as of the report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<Diagnosis>,
    /// The last window's timings, the engine's busy share, the redo logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mining: Option<MiningFigures>,
}

impl DaemonReport {
    pub fn starting(sink: String, now: DateTime<Utc>) -> Self {
        Self {
            pid: std::process::id(),
            state: "connecting".into(),
            error: None,
            sink,
            started_at: now,
            updated_at: now,
            checkpoint_at: None,
            current_scn: 0,
            mined_scn: 0,
            commit_scn: 0,
            restart_scn: 0,
            lag_scns: 0,
            lag_seconds: None,
            events_written: 0,
            events_per_second: 0.0,
            rows_per_second: 0.0,
            open_transactions: 0,
            oldest_open: None,
            largest_open: None,
            snapshot: None,
            cause: None,
            mining: None,
        }
    }

    /// Takes the engine's positions; open transactions are set by the caller.
    pub fn observe(&mut self, s: &CaptureStatus, now: DateTime<Utc>, checkpointed: bool) {
        self.state = match &s.state {
            MiningState::Connecting => "connecting",
            MiningState::Mining => "mining",
            MiningState::Idle => "idle",
            MiningState::Retrying { .. } => "retrying",
            MiningState::Stopped { .. } => "stopped",
            MiningState::Finished => "finished",
        }
        .into();
        if let MiningState::Retrying { error, .. } | MiningState::Stopped { error, .. } = &s.state {
            self.error = Some(error.clone());
        }
        self.updated_at = now;
        if checkpointed {
            self.checkpoint_at = Some(now);
        }
        self.current_scn = s.current_scn;
        self.mined_scn = s.mined_scn;
        self.commit_scn = s.commit_scn;
        self.restart_scn = s.restart_scn;
        self.lag_scns = s.scn_lag();
        self.lag_seconds = s.time_lag_s();
        self.open_transactions = s.open_transactions;
    }
}

/// The status file next to a checkpoint.
pub struct StatusFile {
    path: PathBuf,
}

impl StatusFile {
    pub fn for_checkpoint(checkpoint: &Path) -> Self {
        let mut name = checkpoint.as_os_str().to_owned();
        name.push(".status");
        Self {
            path: PathBuf::from(name),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Replaces the file in one rename, so a reader never sees half of it.
    /// Not synced: it is rewritten every few seconds and a lost one harms
    /// nobody. The temp file never outlives the call: a full disk would
    /// otherwise leave an empty one behind.
    pub fn write(&self, report: &DaemonReport) -> std::io::Result<()> {
        let mut tmp = self.path.as_os_str().to_owned();
        tmp.push(".new");
        let tmp = PathBuf::from(tmp);
        let text = serde_json::to_string_pretty(report).map_err(std::io::Error::other)?;
        // A temp file left by a killed run, or planted as a link, is not
        // written through.
        match std::fs::remove_file(&tmp) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let written = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, &self.path));
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written
    }

    /// The report last written, or `None` when there is no file.
    pub fn read(&self) -> Result<Option<DaemonReport>, String> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|e| format!("{}: not a status file: {e}", self.path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{}: {e}", self.path.display())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> DaemonReport {
        DaemonReport::starting("file".into(), Utc::now())
    }

    /// A full disk, as `/dev/full` answers every write.
    #[cfg(unix)]
    #[test]
    fn failed_status_write_leaves_no_temp_file_issue31() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = StatusFile::for_checkpoint(&dir.path().join("cp.json"));
        let tmp = dir.path().join("cp.json.status.new");
        std::os::unix::fs::symlink("/dev/full", &tmp).expect("symlink");
        // The stale temp file of an earlier run is not written through.
        file.write(&report())
            .expect("a stale temp file is replaced");
        assert!(!tmp.exists(), "the temp file is renamed into place");
        assert!(file.read().expect("readable").is_some());

        std::fs::remove_file(file.path()).expect("remove status");
        std::fs::create_dir(file.path()).expect("a directory where the file goes");
        assert!(file.write(&report()).is_err());
        assert!(
            std::fs::symlink_metadata(&tmp).is_err(),
            "a failed write removes its temp file"
        );
    }
}
