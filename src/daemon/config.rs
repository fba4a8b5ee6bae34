//! What one capture run is asked to do, as one plain struct: the command
//! line and the config file are mapped to it by the binary, tests and
//! benchmarks build it directly.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::connect::CaptureSource;
use crate::engine::capture::PollConfig;
use crate::engine::event::ValueForms;
use crate::engine::row::Scn;
use crate::engine::snapshot::{SnapshotMarks, SnapshotMode};
use crate::engine::txn::{LobMode, OnParseError};
use crate::sink::kafka::KafkaConfig;
use crate::sink::schema_changes::SchemaChanges;

use super::error::DaemonError;

/// Where events go.
#[derive(Debug, Clone)]
pub enum SinkChoice {
    /// JSON lines: `-` for stdout, else a file (appended; a device or a
    /// pipe is written as a stream).
    File { output: String },
    /// One topic per table, the checkpoint committed with the events.
    Kafka(KafkaConfig),
}

/// The pause between polls cannot go below this: a smaller one polls the
/// database in a loop (`CURRENT_SCN` and `V$THREAD` without a pause).
pub const MIN_IDLE_PAUSE: Duration = Duration::from_millis(100);
/// A LogMiner session younger than this is never restarted for its age.
pub const MIN_SESSION_AGE: Duration = Duration::from_secs(10);
/// Status lines come at most this often.
pub const MIN_STATUS_EVERY: Duration = Duration::from_secs(1);
/// A transaction is abandoned no sooner than this (redo time).
pub const MIN_ABANDON_AFTER: Duration = Duration::from_secs(1);

/// One capture run.
#[derive(Debug, Clone)]
pub struct DaemonConfig {
    pub source: CaptureSource,
    pub sink: SinkChoice,
    /// The checkpoint file (unused by a sink that keeps its checkpoint).
    pub checkpoint: PathBuf,
    /// Start after this SCN instead of now (only without a checkpoint).
    pub from_scn: Option<Scn>,
    /// Stop once every change up to this SCN was written.
    pub until_scn: Option<Scn>,
    /// Stop after writing this many events.
    pub count: Option<u64>,
    pub on_parse_error: OnParseError,
    pub relaxed_quotes: bool,
    pub lob: LobMode,
    /// With [`LobMode::Capture`], MiB of LOB values remembered in all (per
    /// row) for updates that leave a LOB alone (`engine::lob_memory`); 0:
    /// none.
    pub lob_memory_mb: u64,
    pub schema_changes: SchemaChanges,
    /// Where rows the parser rejects go with [`OnParseError::Warn`].
    pub dead_letter: PathBuf,
    pub forms: ValueForms,
    /// A transaction buffering this many MiB spills to disk.
    pub spill_mb: u64,
    pub spill_dir: Option<PathBuf>,
    pub abandon_after: Option<Duration>,
    /// Log files per redo thread in one window (one sink commit).
    pub max_logs_per_window: usize,
    /// Events one sink commit holds at most: a window with more (one huge
    /// database transaction) is committed in parts.
    pub max_commit_events: usize,
    pub archive_dest: Option<String>,
    /// `source.name` of the events.
    pub server_name: String,
    /// `max_idle_pause` and `max_session_age` are read from it.
    pub polling: PollConfig,
    /// Write again what an output lost instead of stopping (exit 4).
    pub rewind: bool,
    /// `None`: `initial` on a fresh start without `from_scn`, else `never`.
    pub snapshot: Option<SnapshotMode>,
    pub snapshot_chunk_rows: usize,
    /// Sessions reading snapshot chunks beside the stream, each a
    /// consecutive chunk of one table at one SCN; 0 reads them on the
    /// stream's own session between windows.
    pub snapshot_readers: usize,
    /// How read rows are marked in `source.snapshot`.
    pub snapshot_marks: SnapshotMarks,
    pub status_every: Duration,
    /// Serve `/metrics` and `/status.json` here.
    pub metrics: Option<String>,
}

impl DaemonConfig {
    /// A run of `source` into `sink` with every other option at its
    /// default.
    pub fn new(source: CaptureSource, sink: SinkChoice, checkpoint: PathBuf) -> Self {
        Self {
            source,
            sink,
            checkpoint,
            from_scn: None,
            until_scn: None,
            count: None,
            on_parse_error: OnParseError::Fail,
            relaxed_quotes: false,
            lob: LobMode::Placeholder,
            lob_memory_mb: 64,
            schema_changes: SchemaChanges::Inline,
            dead_letter: PathBuf::from("cdcctl-dead-letter.jsonl"),
            forms: ValueForms::default(),
            spill_mb: 64,
            spill_dir: None,
            abandon_after: None,
            max_logs_per_window: 4,
            max_commit_events: super::deliver::DEFAULT_COMMIT_EVENTS,
            archive_dest: None,
            server_name: "cdcctl".into(),
            polling: PollConfig::default(),
            rewind: false,
            snapshot: None,
            snapshot_chunk_rows: 10_000,
            snapshot_readers: 1,
            snapshot_marks: SnapshotMarks::default(),
            status_every: Duration::from_secs(10),
            metrics: None,
        }
    }

    /// The file output, when events go to a regular file (or one yet to be
    /// created) rather than stdout, a device, a pipe or Kafka: only such a
    /// file is locked, resumed from its last line and synced.
    pub fn output_file(&self) -> Option<&Path> {
        match &self.sink {
            SinkChoice::File { output } if output != "-" => {
                let path = Path::new(output);
                std::fs::metadata(path)
                    .map_or(true, |m| m.file_type().is_file())
                    .then_some(path)
            }
            _ => None,
        }
    }

    /// The Kafka sink's configuration, with `--sink kafka`.
    pub fn kafka(&self) -> Option<&KafkaConfig> {
        match &self.sink {
            SinkChoice::Kafka(k) => Some(k),
            SinkChoice::File { .. } => None,
        }
    }

    /// The destination as `status` names it.
    pub fn sink_label(&self) -> String {
        match &self.sink {
            SinkChoice::Kafka(k) => {
                format!("kafka {} ({}.SCHEMA.TABLE)", k.brokers, k.server_name)
            }
            SinkChoice::File { output } if output == "-" => "stdout".into(),
            SinkChoice::File { output } => format!("file {output}"),
        }
    }

    /// Refuses what no run can do: durations below their floors, an end
    /// before the start, a spill directory that is not one, options of one
    /// sink given to the other.
    pub fn validate(&self) -> Result<(), DaemonError> {
        let floor = |what: &str, value: Duration, min: Duration| {
            if value < min {
                Err(DaemonError::Usage(format!(
                    "{what} {}: below the smallest allowed, {}",
                    show(value),
                    show(min)
                )))
            } else {
                Ok(())
            }
        };
        floor(
            "--max-idle-pause",
            self.polling.max_idle_pause,
            MIN_IDLE_PAUSE,
        )?;
        floor(
            "--max-session-age",
            self.polling.max_session_age,
            MIN_SESSION_AGE,
        )?;
        floor("--status-every", self.status_every, MIN_STATUS_EVERY)?;
        if let Some(a) = self.abandon_after {
            floor("--abandon-after", a, MIN_ABANDON_AFTER)?;
        }
        if let (Some(from), Some(until)) = (self.from_scn, self.until_scn) {
            if until < from {
                return Err(DaemonError::Usage(format!(
                    "--until-scn {until} is below --from-scn {from}; nothing would be captured"
                )));
            }
        }
        if let Some(dir) = self.spill_dir.as_ref().filter(|d| !d.is_dir()) {
            return Err(DaemonError::Usage(format!(
                "--spill-dir {} is not a directory",
                dir.display()
            )));
        }
        if self.rewind && self.kafka().is_some() {
            return Err(DaemonError::Usage(
                "--rewind is for --sink file; with --sink kafka the checkpoint is committed with \
                 the events, so Kafka cannot fall behind it"
                    .into(),
            ));
        }
        Ok(())
    }
}

/// A duration as an operator writes one (`100ms`, `10s`, `3m`).
fn show(d: Duration) -> String {
    match (d.as_secs(), d.subsec_millis()) {
        (0, ms) => format!("{ms}ms"),
        (s, 0) if s % 60 == 0 => format!("{}m", s / 60),
        (s, 0) => format!("{s}s"),
        (s, ms) => format!("{}ms", s * 1000 + u64::from(ms)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> DaemonConfig {
        let source = CaptureSource {
            spec: "sim".into(),
            client_lib: None,
            tables: Vec::new(),
            pdb: None,
            every_table: true,
            prompt: |_| None,
        };
        DaemonConfig::new(
            source,
            SinkChoice::File { output: "-".into() },
            PathBuf::from("cp.json"),
        )
    }

    #[test]
    fn durations_below_their_floor_are_refused_naming_the_floor() {
        let mut c = config();
        c.polling.max_idle_pause = Duration::ZERO;
        let e = c.validate().expect_err("0s pause");
        assert_eq!(
            e.to_string(),
            "--max-idle-pause 0ms: below the smallest allowed, 100ms"
        );
        let mut c = config();
        c.polling.max_session_age = Duration::ZERO;
        assert!(c.validate().is_err());
        let mut c = config();
        c.status_every = Duration::ZERO;
        assert!(c.validate().is_err());
        let mut c = config();
        c.abandon_after = Some(Duration::ZERO);
        assert!(c.validate().is_err());
        assert!(config().validate().is_ok());
    }

    #[test]
    fn an_end_below_the_start_is_refused() {
        let mut c = config();
        c.from_scn = Some(13_000_000);
        c.until_scn = Some(0);
        let e = c.validate().expect_err("until below from");
        assert!(e.to_string().contains("below --from-scn"), "{e}");
        c.until_scn = Some(13_000_000);
        assert!(c.validate().is_ok());
    }
}
