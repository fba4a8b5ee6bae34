//! `cdcctl run`: the capture daemon. Mines changes, writes them to a sink,
//! and advances a checkpoint only after the sink made them durable.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;

use crate::cli::duration::parse_duration;
use crate::cli::log::{self, Level};
use crate::cli::{exit, kafka, source, GlobalArgs};
use cdcctl::connect::tables;
use cdcctl::engine::capture::{
    Capture, CaptureConfig, CaptureError, PollConfig, Progress, StartAt,
};
use cdcctl::engine::checkpoint::{Checkpoint, EventPosition, FileCheckpointStore};
use cdcctl::engine::event::CapturedEvent;
use cdcctl::engine::session::PlannerConfig;
use cdcctl::engine::snapshot::{SnapshotConfig, SnapshotMode, SnapshotProgress, Snapshotter, Step};
use cdcctl::engine::txn::{BufferConfig, OnParseError, SinkError as TxnSinkError, TxnError};
use cdcctl::output::progress;
use cdcctl::sink::lock::{lock_path, WriterLock};
use cdcctl::sink::schema_changes::{SchemaChangeRouter, SchemaChanges};
use cdcctl::sink::stream::{self, Verdict};
use cdcctl::sink::{DeadLetterFile, EventSink, JsonLinesSink};
use cdcctl::telemetry::{http as metrics, Tally, Telemetry, Volumes};

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Tables to capture: [SCHEMA.]TABLE, comma-separated or repeated; a bare
    /// TABLE is looked up in every schema you can see; `%` and `_` are
    /// wildcards, in the schema too. Default: every table LogMiner returns.
    #[arg(value_delimiter = ',')]
    pub tables: Vec<String>,
    /// Read options from this TOML file: every long option is a key of the
    /// same name (`spill-mb = 128`), `tables = ["APP.ORDERS"]` the table
    /// list; options on the command line override it. Passwords are refused
    /// there (CDCCTL_PASSWORD, the prompt or a wallet).
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Where events go with `--sink file`: a file (appended, JSON lines) or
    /// `-` for stdout.
    #[arg(long, short, default_value = "-")]
    pub output: String,
    /// Checkpoint file; capture resumes from it when it exists.
    #[arg(long, default_value = "cdcctl-checkpoint.json")]
    pub checkpoint: PathBuf,
    /// Start after this SCN instead of now (only without an existing checkpoint).
    #[arg(long, value_name = "SCN")]
    pub from_scn: Option<u64>,
    /// Stop once every change up to this SCN was written.
    #[arg(long, value_name = "SCN")]
    pub until_scn: Option<u64>,
    /// Stop after writing this many events.
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,
    /// What to do with a row the parser rejects: stop (`fail`) or write it to
    /// the dead-letter file and go on (`warn`).
    #[arg(long, value_parser = ["fail", "warn"], default_value = "fail")]
    pub on_parse_error: String,
    /// Read string values holding a quote LogMiner did not double (a defect
    /// of some releases), finding each literal's end from the statement's
    /// column count; every value so recovered is reported as a finding.
    /// Without it such a statement is a parse error pointing at the quote.
    #[arg(long)]
    pub relaxed_quotes: bool,
    /// LOB and XMLType values: reassembled from their rows (`capture`) or
    /// `__debezium_unavailable_value` with a finding (`placeholder`).
    /// Extended strings are reassembled either way.
    #[arg(long, value_enum, default_value_t = crate::cli::redo_replay::LobArg::Placeholder)]
    pub lob: crate::cli::redo_replay::LobArg,
    /// Schema-change (DDL) events: with the row changes (`inline`), left
    /// out (`skip`), or appended to a file of their own (a path), as
    /// Debezium keeps them off the tables' topics. A reader that takes the
    /// output as a table's changelog (Flink's `debezium-json`) needs `skip`
    /// or a file.
    #[arg(long, value_name = "inline|skip|FILE", default_value = "inline", value_parser = parse_schema_changes)]
    pub schema_changes: SchemaChanges,
    /// Dead-letter file for `--on-parse-error warn`.
    #[arg(long, default_value = "cdcctl-dead-letter.jsonl")]
    pub dead_letter: PathBuf,
    #[command(flatten)]
    pub forms: crate::cli::forms::FormsArgs,
    #[command(flatten)]
    pub kafka: crate::cli::kafka::KafkaArgs,
    /// Spill a transaction to disk once it buffers this many MiB.
    #[arg(long, value_name = "MIB", default_value_t = 64)]
    pub spill_mb: u64,
    /// Directory for spill files (default: the system temp dir).
    #[arg(long)]
    pub spill_dir: Option<PathBuf>,
    /// Abandon transactions open longer than this (redo time), with a warning
    /// naming each one. Default: keep them however long they stay open.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub abandon_after: Option<Duration>,
    /// Mine at most this many log files per redo thread in one window. Each
    /// window is one sink commit (one Kafka transaction with --sink kafka),
    /// so fewer logs mean smaller transactions and less to redo after a crash.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub max_logs_per_window: u64,
    /// Archive destination (V$ARCHIVE_DEST_STATUS.DEST_NAME) to read archives from.
    #[arg(long)]
    pub archive_dest: Option<String>,
    /// The PDB to capture from: when connected to CDB$ROOT, its tables are
    /// read inside it and only its changes (SRC_CON_NAME) are kept. Upper
    /// case unless written in double quotes; checked against V$PDBS.
    #[arg(long)]
    pub pdb: Option<String>,
    /// `source.name` of the events (the logical server name / topic prefix).
    #[arg(long, default_value = "cdcctl")]
    pub server_name: String,
    /// Longest pause between polls while the database writes nothing (the
    /// pause starts at 100 ms and doubles with each empty poll).
    #[arg(long, value_parser = parse_duration, default_value = "3s")]
    pub max_idle_pause: Duration,
    /// End and restart a LogMiner session reused this long, to give back
    /// the PGA it grows.
    #[arg(long, value_parser = parse_duration, default_value = "30m")]
    pub max_session_age: Duration,
    /// When the output lost events its checkpoint counts as written (restored
    /// from an old backup, truncated), write them again from the output's end
    /// instead of stopping (exit 4).
    #[arg(long)]
    pub rewind: bool,
    /// Copy the tables' existing rows first (`op: "r"` events), then stream:
    /// `initial` (the default without a checkpoint and --from-scn), `never`
    /// (stream only; the default otherwise), `initial-only` (snapshot, then
    /// exit 0), `when-needed` (as initial, and again when the checkpoint's
    /// restart SCN is no longer in the available redo). An unfinished
    /// snapshot in the checkpoint is resumed at its next chunk.
    #[arg(long, value_name = "MODE", value_parser = parse_snapshot_mode)]
    pub snapshot: Option<SnapshotMode>,
    /// Rows per snapshot chunk: each chunk is one `AS OF SCN` read, so undo
    /// retention has to cover one chunk's read, not the whole table's.
    #[arg(long, value_name = "ROWS", default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub snapshot_chunk_rows: u64,
    /// Print a progress line on stderr this often.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "10s")]
    pub status_every: Duration,
    /// Serve Prometheus metrics at http://ADDR/metrics and the status
    /// document at /status.json (e.g. 127.0.0.1:9464; port 0 picks one).
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<String>,
}

impl RunArgs {
    /// Whether `--output` names a regular file (or one yet to be created)
    /// rather than stdout, a device or a pipe: only a regular file can be
    /// locked beside, resumed from its last line and synced.
    fn output_is_file(&self) -> bool {
        self.output != "-"
            && std::fs::metadata(&self.output).map_or(true, |m| m.file_type().is_file())
    }
}

fn parse_schema_changes(s: &str) -> Result<SchemaChanges, String> {
    s.parse()
}

fn parse_snapshot_mode(s: &str) -> Result<SnapshotMode, String> {
    s.parse()
}

/// A notice of `run` on stderr, as text or JSON (`--log-format`).
macro_rules! say {
    ($($arg:tt)*) => {
        log::notice("run", Level::Info, &format!($($arg)*), None, &[])
    };
}

pub fn run(global: &GlobalArgs, args: &RunArgs) -> ExitCode {
    if !global.source_explicit {
        // A daemon that silently captured the built-in simulator would feed
        // made-up changes to whatever reads its sink.
        log::notice(
            "run",
            Level::Error,
            "no --source given; name the database to capture with \
             --source oracle://USER@HOST:PORT/SERVICE (or CDCCTL_SOURCE), or \
             --source sim[:SCENARIO] to capture the built-in simulator on purpose",
            None,
            &[],
        );
        return exit::code(exit::USAGE);
    }
    let created = NewFiles::before(args);
    let mut source_opened = false;
    let outcome = run_inner(global, args, &mut source_opened);
    match outcome {
        Ok(code) => code,
        Err(Failure { code, message }) => {
            if !source_opened {
                created.remove();
            }
            log::notice("run", Level::Error, &message, None, &[]);
            exit::code(code)
        }
    }
}

/// The files a run creates before it knows it can capture (the locks, the
/// output and its stream id), listed when absent at start: a run refused
/// before its source opened (a mistyped table, a wrong password) removes
/// them again, so a typo leaves nothing to clean up.
struct NewFiles(Vec<PathBuf>);

impl NewFiles {
    fn before(args: &RunArgs) -> Self {
        let mut paths = vec![args.checkpoint.clone(), lock_path(&args.checkpoint)];
        if args.output_is_file() {
            let out = Path::new(&args.output);
            paths.extend([
                out.to_path_buf(),
                lock_path(out),
                stream::identity_path(out),
            ]);
        }
        if let SchemaChanges::File(p) = &args.schema_changes {
            paths.push(p.clone());
        }
        Self(paths.into_iter().filter(|p| !p.exists()).collect())
    }

    fn remove(self) {
        for p in self.0 {
            // Best effort: only what this run created is listed.
            let _ = std::fs::remove_file(p);
        }
    }
}

struct Failure {
    code: u8,
    message: String,
}

/// Why a snapshot chunk ended the run without a failure: the reader of
/// stdout went away (`| head`).
const READER_GONE: &str = "the reader of stdout went away";

impl Failure {
    fn usage(message: impl Into<String>) -> Self {
        Self {
            code: exit::USAGE,
            message: message.into(),
        }
    }

    fn reader_gone() -> Self {
        Self {
            code: exit::OK,
            message: READER_GONE.into(),
        }
    }

    fn is_reader_gone(&self) -> bool {
        self.code == exit::OK && self.message == READER_GONE
    }

    /// A sink error as the run ends on it: a closed pipe is the reader's
    /// choice, anything else a failure.
    fn of_sink(e: &cdcctl::sink::SinkError) -> Self {
        if is_closed_pipe(e) {
            Self::reader_gone()
        } else {
            Self::usage(e.to_string())
        }
    }
}

fn capture_failure(e: &CaptureError) -> Failure {
    Failure {
        code: exit::for_capture(e),
        message: exit::with_advice(e, e.advice().as_deref()),
    }
}

/// The database's current SCN, reconnecting on a dropped connection as the
/// capture loop does later (a drop before the first call is no different).
fn first_current_scn(
    source: &mut dyn cdcctl::source::RedoSource,
) -> Result<cdcctl::source::ScnTime, Failure> {
    const ATTEMPTS: u32 = 5;
    let mut attempt = 0;
    loop {
        match source.current_scn() {
            Ok(t) => return Ok(t),
            Err(e) if e.is_transient() && attempt < ATTEMPTS => {
                attempt += 1;
                say!("{e}; reconnecting (attempt {attempt})");
                std::thread::sleep(Duration::from_secs(1));
                if let Err(r) = source.reconnect() {
                    say!("reconnect failed: {r}");
                }
            }
            Err(e) => {
                return Err(Failure {
                    code: exit::for_source(&e),
                    message: exit::with_advice(&e, e.advice().as_deref()),
                })
            }
        }
    }
}

/// Which database a checkpoint's positions belong to.
struct Origin {
    db_name: String,
    source: Option<String>,
}

impl Origin {
    fn stamp(&self, cp: &mut Checkpoint) {
        cp.db_name = Some(self.db_name.clone());
        cp.source.clone_from(&self.source);
    }
}

/// `sim:NAME` without its options: a scenario is a database of its own.
fn sim_scenario(spec: &str) -> Option<String> {
    let base = spec.split('?').next().unwrap_or(spec);
    match base {
        "sim" => Some("sim:demo".into()),
        _ if base.starts_with("sim:") => Some(base.to_string()),
        _ => None,
    }
}

/// Refuses a start position that cannot be right for this database: above
/// its current SCN, a checkpoint of another database, a restart SCN of 0,
/// or a checkpoint already past `--until-scn`.
fn check_start(
    args: &RunArgs,
    start: &StartAt,
    current_scn: u64,
    origin: &Origin,
) -> Result<(), Failure> {
    let cp = match start {
        StartAt::Now => return Ok(()),
        StartAt::Scn(scn) if *scn > current_scn => {
            return Err(Failure::usage(format!(
                "--from-scn {scn} is above the database's current SCN {current_scn}"
            )))
        }
        StartAt::Scn(_) => return Ok(()),
        StartAt::Checkpoint(cp) => cp,
    };
    let name = args.checkpoint.display();
    let refuse = |what: String| {
        Err(Failure::usage(format!(
            "checkpoint {name} cannot be right for this source: {what}; use the checkpoint of \
             this database, or remove it to start over"
        )))
    };
    if let Some(db) = cp.db_name.as_deref().filter(|db| *db != origin.db_name) {
        return refuse(format!(
            "it was written for database {db}, the source is {}",
            origin.db_name
        ));
    }
    if let (Some(was), Some(is)) = (cp.source.as_deref(), origin.source.as_deref()) {
        if was != is {
            return refuse(format!("it was written for {was}, the source is {is}"));
        }
    }
    if cp.restart_scn == 0 {
        return refuse("its restart SCN is 0".into());
    }
    let highest = cp.restart_scn.max(cp.commit_scn);
    if highest > current_scn {
        return refuse(format!(
            "it is at SCN {highest}, above the database's current SCN {current_scn} (a restored \
             or different database)"
        ));
    }
    if let Some(until) = args.until_scn.filter(|u| cp.commit_scn > *u) {
        return Err(Failure::usage(format!(
            "checkpoint {name} is already past --until-scn {until} (commit SCN {}): nothing to do",
            cp.commit_scn
        )));
    }
    Ok(())
}

/// The output, checked against the checkpoint, with the stream identity
/// to store and, for `--rewind`, the position to restart from.
struct OpenedOutput {
    sink: Box<dyn EventSink>,
    stream_id: Option<String>,
    rewind: Option<Checkpoint>,
}

fn open_output(args: &RunArgs, existing: Option<&Checkpoint>) -> Result<OpenedOutput, Failure> {
    if !args.output_is_file() {
        let sink = if args.output == "-" {
            JsonLinesSink::stdout()
        } else {
            JsonLinesSink::stream(Path::new(&args.output))
                .map_err(|e| Failure::usage(e.to_string()))?
        };
        return Ok(OpenedOutput {
            sink: Box::new(sink.with_forms(args.forms.forms())),
            stream_id: existing.and_then(|c| c.stream_id.clone()),
            rewind: None,
        });
    }
    let path = Path::new(&args.output);
    let file = JsonLinesSink::file(path)
        .map_err(|e| Failure::usage(e.to_string()))?
        .with_forms(args.forms.forms());
    if file.torn_bytes_cut() > 0 {
        say!(
            "cut {} bytes of a torn last line from {} (an interrupted write)",
            file.torn_bytes_cut(),
            args.output
        );
    }
    let file_id = stream::read_identity(path)
        .map_err(|e| Failure::usage(format!("output {}: {e}", args.output)))?;
    let file_last = file.last_position();
    let (id, rewind) = match stream::verdict(existing, file_id.as_deref(), file_last.as_ref()) {
        Verdict::Foreign(why) => {
            return Err(Failure::usage(format!(
                "output {} is not the output of checkpoint {}: {why}; write to another file, \
                 or use the checkpoint that goes with it",
                args.output,
                args.checkpoint.display()
            )))
        }
        Verdict::Proceed { id } => (id, None),
        Verdict::Behind {
            id,
            file_last,
            checkpoint_last,
        } => {
            let rewind = rewind_to_output_end(args, existing, file_last, &checkpoint_last)?;
            (id, Some(rewind))
        }
    };
    if file_id.as_deref() != Some(id.as_str()) {
        stream::write_identity(path, &id)
            .map_err(|e| Failure::usage(format!("output {}: {e}", args.output)))?;
    }
    Ok(OpenedOutput {
        sink: Box::new(file),
        rewind: rewind.map(|mut cp| {
            cp.stream_id = Some(id.clone());
            cp
        }),
        stream_id: Some(id),
    })
}

fn describe(p: Option<&EventPosition>) -> String {
    match p {
        Some(p) => format!(
            "at commit SCN {} (XID {}, event {})",
            p.commit_scn, p.xid, p.order
        ),
        None => "empty".into(),
    }
}

/// Refuses an output behind its checkpoint (exit 4), or with `--rewind`
/// builds the checkpoint that re-emits everything after the output's end.
fn rewind_to_output_end(
    args: &RunArgs,
    existing: Option<&Checkpoint>,
    file_last: Option<EventPosition>,
    checkpoint_last: &EventPosition,
) -> Result<Checkpoint, Failure> {
    let untrusted = |message: String| Failure {
        code: exit::UNTRUSTED_DATA,
        message,
    };
    let gap = format!(
        "output {} is behind checkpoint {}: the output is {}, the checkpoint counts events up \
         to commit SCN {} (XID {}, event {}) as written, so the changes in between are missing \
         from the output",
        args.output,
        args.checkpoint.display(),
        describe(file_last.as_ref()),
        checkpoint_last.commit_scn,
        checkpoint_last.xid,
        checkpoint_last.order
    );
    if !args.rewind {
        return Err(untrusted(format!(
            "{gap}; restore the output, or run with --rewind to write them again from the \
             output's end (the redo logs must still cover it)"
        )));
    }
    let points = existing.map(|c| c.rewind_points.as_slice()).unwrap_or(&[]);
    let Some(point) = stream::rewind_point_for(points, file_last.as_ref()) else {
        return Err(untrusted(format!(
            "{gap}; --rewind: the checkpoint keeps no position before the output's end, \
             so start a new output with --from-scn"
        )));
    };
    say!(
        "{gap}; rewinding to restart SCN {} (commit SCN {}) to write them again",
        point.restart_scn,
        point.commit_scn
    );
    let mut cp = Checkpoint::new(
        point.restart_scn,
        point.commit_scn,
        point.committed_xids_at_commit_scn.clone(),
        None,
    );
    cp.last_event = file_last;
    cp.rewind_points = points
        .iter()
        .filter(|p| p.commit_scn <= point.commit_scn)
        .cloned()
        .collect();
    Ok(cp)
}

/// A write that failed because the reader of the pipe went away.
fn is_closed_pipe(e: &cdcctl::sink::SinkError) -> bool {
    matches!(e, cdcctl::sink::SinkError::Io { source, .. }
        if source.kind() == std::io::ErrorKind::BrokenPipe)
}

fn take_writer_locks(args: &RunArgs) -> Result<Vec<WriterLock>, Failure> {
    let mut locks = vec![WriterLock::acquire(&args.checkpoint, "checkpoint")];
    if args.output_is_file() {
        locks.push(WriterLock::acquire(Path::new(&args.output), "output"));
    }
    locks
        .into_iter()
        .map(|l| l.map_err(|e| Failure::usage(e.to_string())))
        .collect()
}

fn run_inner(
    global: &GlobalArgs,
    args: &RunArgs,
    source_opened: &mut bool,
) -> Result<ExitCode, Failure> {
    let specs = args
        .tables
        .iter()
        .filter(|t| !t.trim().is_empty())
        .map(|t| tables::parse_spec(t).map_err(Failure::usage))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(dir) = &args.spill_dir {
        if !dir.is_dir() {
            return Err(Failure::usage(format!(
                "--spill-dir {} is not a directory",
                dir.display()
            )));
        }
    }
    let kafka_config = kafka_config(args)?;
    let store = FileCheckpointStore::new(&args.checkpoint);
    // Held until the process ends: a second writer on either file would
    // duplicate or interleave events. Kafka fences a second producer itself.
    let _locks = match &kafka_config {
        Some(_) => Vec::new(),
        None => take_writer_locks(args)?,
    };
    let mut kafka_sink = match kafka_config {
        Some(c) => {
            let topic = c.offsets_topic();
            let sink = kafka::open(c).map_err(|e| Failure {
                code: exit::USAGE,
                message: e,
            })?;
            Some((sink, topic))
        }
        None => None,
    };
    let existing = match &kafka_sink {
        Some((sink, _)) => sink.stored_checkpoint().cloned(),
        None => {
            match store.remove_stale_temp_files() {
                Ok(0) => {}
                Ok(n) => say!("removed {n} temporary file(s) of an interrupted checkpoint save"),
                Err(e) => return Err(Failure::usage(e.to_string())),
            }
            store.load().map_err(|e| {
                Failure::usage(format!("checkpoint {}: {e}", args.checkpoint.display()))
            })?
        }
    };
    let checkpoint_name = match &kafka_sink {
        Some((_, topic)) => format!("in Kafka topic {topic}"),
        None => args.checkpoint.display().to_string(),
    };
    if existing.is_some() && args.from_scn.is_some() {
        return Err(Failure::usage(format!(
            "--from-scn conflicts with the existing checkpoint {checkpoint_name}: remove it to \
             start over, or drop --from-scn to resume"
        )));
    }
    let OpenedOutput {
        sink: file_sink,
        stream_id,
        rewind,
    } = match &kafka_sink {
        Some(_) => OpenedOutput {
            sink: Box::new(JsonLinesSink::stdout()),
            stream_id: None,
            rewind: None,
        },
        None => open_output(args, existing.as_ref())?,
    };
    let fresh = existing.is_none();
    let mode =
        match (args.snapshot, fresh, args.from_scn) {
            (Some(m), _, Some(_)) if m != SnapshotMode::Never => return Err(Failure::usage(
                "--snapshot reads the tables as they are now, while --from-scn starts the stream \
                 at an older SCN: give one or the other (--snapshot never with --from-scn)",
            )),
            (Some(m), _, _) => m,
            (None, true, None) => SnapshotMode::Initial,
            (None, _, _) => SnapshotMode::Never,
        };
    let stored_snapshot = existing.as_ref().and_then(|c| c.snapshot.clone());
    if mode == SnapshotMode::InitialOnly && stored_snapshot.as_ref().is_some_and(|p| p.finished()) {
        say!(
            "the snapshot of checkpoint {} is complete; --snapshot initial-only has \
             nothing to do (run without it to stream on)",
            args.checkpoint.display()
        );
        return Ok(exit::code(exit::OK));
    }
    // The highest SCN the checkpoint knows the database reached.
    let resume_scn = existing.as_ref().map(|c| {
        c.restart_scn
            .max(c.commit_scn)
            .max(c.last_event.as_ref().map_or(0, |e| e.commit_scn))
    });
    let mut rewind_points = existing
        .as_ref()
        .map(|c| c.rewind_points.clone())
        .unwrap_or_default();
    let mut rotated_after = existing.as_ref().and_then(|c| c.rotated_after.clone());
    let resumed = rewind.is_none() && existing.is_some();
    let start = match (rewind, existing, args.from_scn) {
        (Some(cp), _, _) => {
            store
                .overwrite(&cp)
                .map_err(|e| Failure::usage(e.to_string()))?;
            rewind_points.clone_from(&cp.rewind_points);
            StartAt::Checkpoint(cp)
        }
        (None, Some(cp), _) => StartAt::Checkpoint(cp),
        (None, None, Some(scn)) => StartAt::Scn(scn),
        (None, None, None) => StartAt::Now,
    };
    let request = cdcctl::connect::CaptureSource {
        spec: global.source.clone(),
        client_lib: global.oracle_client_lib.clone(),
        tables: specs,
        pdb: args.pdb.clone(),
        every_table: true,
        prompt: source::prompt_password,
    };
    let opened = request.open(resume_scn).map_err(|e| Failure {
        code: e.exit_code,
        message: e.message,
    })?;
    // Snapshots of DM8 tables are not wired yet: a run that would take one
    // by default streams from now instead, and one asked for is refused
    // before a checkpoint promises a snapshot that cannot be read.
    let mode = match (opened.source.dialect(), mode, args.snapshot) {
        (cdcctl::source::Dialect::Dm, SnapshotMode::Never, _) => mode,
        (cdcctl::source::Dialect::Dm, _, None) => {
            say!(
                "DM8 tables cannot be snapshotted yet: no initial snapshot; the stream \
                 starts at the current position (pass --snapshot never to say so)"
            );
            SnapshotMode::Never
        }
        (cdcctl::source::Dialect::Dm, _, Some(_)) => {
            return Err(Failure::usage(
                "--snapshot: DM8 tables cannot be snapshotted yet; \
                 use --snapshot never (changes from the start position on)",
            ))
        }
        _ => mode,
    };
    *source_opened = true;
    let mut config = CaptureConfig {
        buffer: BufferConfig {
            server_name: args.server_name.clone(),
            db_name: opened.db_name.clone(),
            charsets: opened.charsets.clone(),
            on_parse_error: if args.on_parse_error == "warn" {
                OnParseError::Warn
            } else {
                OnParseError::Fail
            },
            relaxed_quotes: args.relaxed_quotes,
            lob: args.lob.into(),
            spill_txn_bytes: Some(args.spill_mb.max(1) << 20),
            spill_dir: args.spill_dir.clone(),
            abandon_after: args.abandon_after,
            ..BufferConfig::default()
        },
        planner: PlannerConfig {
            archive_dest: args.archive_dest.clone(),
            max_logs_per_thread: usize::try_from(args.max_logs_per_window).unwrap_or(4),
        },
        tables: opened.tables.patterns.clone(),
        pdb: opened.pdb_filter.clone(),
        start,
        until_scn: args.until_scn,
        key_columns: opened.key_columns.clone(),
        polling: PollConfig {
            max_idle_pause: args.max_idle_pause,
            max_session_age: args.max_session_age,
            ..PollConfig::default()
        },
        lob_columns: opened.lob_columns.clone(),
        binary_columns: opened.binary_columns.clone(),
        ..CaptureConfig::default()
    };
    let column_kinds = Arc::clone(&opened.column_kinds);
    let opened_tables = OpenedTables {
        names: if opened.tables.tables.is_empty() {
            opened
                .key_columns
                .keys()
                .map(|t| (t.clone(), None))
                .collect()
        } else {
            opened
                .tables
                .tables
                .iter()
                .map(|t| (t.name.clone(), t.num_rows))
                .collect()
        },
        key_columns: opened.key_columns.clone(),
        binary_columns: opened.binary_columns.clone(),
        server_name: args.server_name.clone(),
        db: opened
            .pdb_filter
            .clone()
            .unwrap_or_else(|| opened.db_name.clone()),
        dialect: opened.source.dialect(),
    };
    let sink: Box<dyn EventSink> = match kafka_sink.take() {
        Some((mut k, _)) => {
            k.set_key_columns(opened.key_columns.clone());
            Box::new(k)
        }
        None => file_sink,
    };
    let mut sink: Box<dyn EventSink> = match &args.schema_changes {
        SchemaChanges::Inline => sink,
        mode => Box::new(
            SchemaChangeRouter::new(sink, mode).map_err(|e| Failure::usage(e.to_string()))?,
        ),
    };
    let mut source = opened.source;
    let current = first_current_scn(source.as_mut())?;
    // Start at the SCN just read rather than asking again: the capture
    // then makes no call of its own before its retrying loop.
    if matches!(config.start, StartAt::Now) {
        config.start = StartAt::Scn(current.scn);
    }
    let origin = Origin {
        db_name: opened.db_name.clone(),
        source: sim_scenario(&global.source),
    };
    check_start(args, &config.start, current.scn, &origin)?;
    if let (true, StartAt::Checkpoint(cp)) = (resumed, &config.start) {
        say!(
            "resuming from {checkpoint_name} (restart SCN {}, commit SCN {})",
            cp.restart_scn,
            cp.commit_scn
        );
    }
    sink.set_column_kinds(column_kinds);
    // --snapshot when-needed: a restart SCN whose redo is gone cannot be
    // streamed from; the tables are read again and the stream starts now.
    let mut resnapshot = false;
    let mut stored_snapshot = stored_snapshot;
    if let (SnapshotMode::WhenNeeded, StartAt::Checkpoint(cp)) = (mode, &config.start) {
        if let Some(gone) = restart_redo_gone(
            source.as_mut(),
            cp.restart_scn,
            current.scn,
            &config.planner,
        )? {
            say!(
                "WARNING: the checkpoint's restart SCN {} can no longer be streamed \
                 from ({gone}); changes between it and now are lost to the stream. \
                 --snapshot when-needed: every table is snapshotted again at the current SCN \
                 {} and the stream goes on from there",
                cp.restart_scn,
                current.scn
            );
            let chunks = stored_snapshot.as_ref().map_or(0, |p| p.chunks);
            let mut again = SnapshotProgress::new(opened_tables.names.clone());
            // Chunk numbers go on growing, so output positions do too.
            again.chunks = chunks;
            stored_snapshot = Some(again);
            config.start = StartAt::Scn(current.scn);
            resnapshot = true;
        }
    }
    let mut capture = Capture::new(source, config).map_err(|e| capture_failure(&e))?;
    let mut snapshot = plan_snapshot(args, mode, fresh, stored_snapshot, &opened_tables)?;
    if fresh || resnapshot {
        // Stored before any event is written, so an output never holds
        // events without a checkpoint naming its stream.
        // A snapshot taken again starts a stream whose position is past the
        // stored one: stored as such, the checkpoint moves forward.
        let mut initial = if resnapshot {
            capture.checkpoint()
        } else {
            Checkpoint::new(capture.status().restart_scn, 0, Vec::new(), None)
        };
        initial.stream_id.clone_from(&stream_id);
        origin.stamp(&mut initial);
        if let Some(p) = initial.rewind_point() {
            stream::push_rewind_point(&mut rewind_points, p);
        }
        initial.rewind_points.clone_from(&rewind_points);
        initial.snapshot = snapshot.as_ref().map(|s| s.progress().clone());
        initial.last_event = sink.last_position();
        if sink.keeps_checkpoint() {
            sink.commit_with(Some(&initial))
                .map_err(|e| Failure::usage(format!("checkpoint: {e}")))?;
        } else {
            store
                .save(&initial)
                .map_err(|e| Failure::usage(format!("checkpoint: {e}")))?;
        }
    }
    let stop = super::signals::stop_on_signals()
        .map_err(|e| Failure::usage(format!("cannot handle signals: {e}")))?;
    // SIGHUP: reopen the output file (logrotate's postrotate).
    let hangup = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGHUP, Arc::clone(&hangup))
        .map_err(|e| Failure::usage(format!("cannot handle signals: {e}")))?;
    let telemetry = Telemetry::new(
        (!sink.keeps_checkpoint()).then_some(args.checkpoint.as_path()),
        sink_label(args),
    );
    if let Some(addr) = &args.metrics {
        let bound =
            metrics::serve(addr, std::sync::Arc::clone(&telemetry)).map_err(Failure::usage)?;
        say!("metrics at http://{bound}/metrics");
    }
    let mut tally = Tally::default();
    let mut dead_letters: Option<DeadLetterFile> = None;
    let mut written: u64 = 0;
    let mut last_status = Instant::now();
    let snapshot_started = Instant::now();
    let snapshot_rows_before = snapshot.as_ref().map_or(0, |s| s.progress().rows());
    let bars = snapshot
        .as_ref()
        .filter(|s| !s.finished() && !log::json())
        .map(|s| progress::SnapshotBars::new(s.progress()));
    let limit = args.count.unwrap_or(u64::MAX);
    let mut outcome: Result<(), Failure> = Ok(());
    // The reader of stdout went away (`| head`): its choice, not a failure.
    let mut reader_gone = false;
    while !stop.load(Ordering::Relaxed) && written < limit {
        let mut sink_error = None;
        let before = capture.checkpoint();
        let written_before = written;
        let progress = capture.poll(&mut |e: CapturedEvent| -> Result<(), TxnSinkError> {
            if written >= limit {
                return Err("event limit reached".into());
            }
            let skipped = sink.skipped_duplicates();
            sink.write(&e).map_err(|err| {
                let msg = err.to_string();
                sink_error = Some(err);
                TxnSinkError::from(msg)
            })?;
            // Events the output already held do not count towards --count.
            if sink.skipped_duplicates() == skipped {
                written += 1;
                tally.count(&e);
            }
            Ok(())
        });
        if written > written_before && before.restart_scn > 0 {
            if let Some(p) = before.rewind_point() {
                stream::push_rewind_point(&mut rewind_points, p);
            }
        }
        let stamp = Stamp {
            stream_id: &stream_id,
            origin: &origin,
            rewind_points: &rewind_points,
            rotated_after: &rotated_after,
        };
        // Events first, then the checkpoint that covers them (in one
        // transaction when the sink keeps the checkpoint). Restart SCN 0:
        // no window mined yet, the stored checkpoint stands.
        let cp = stamp.checkpoint(&capture, sink.as_ref(), snapshot.as_ref());
        let committing = Instant::now();
        let committed = if sink.keeps_checkpoint() {
            sink.commit_with(cp.as_ref())
        } else {
            sink.commit()
        };
        telemetry.sink_committed(committing.elapsed(), sink.in_flight());
        if let Err(e) = committed {
            if is_closed_pipe(&e) {
                reader_gone = true;
            } else {
                outcome = Err(Failure {
                    code: exit::USAGE,
                    message: e.to_string(),
                });
            }
            break;
        }
        // Reopened only now, with every event committed to the old file,
        // and recorded in this very checkpoint.
        let mut rotated = None;
        if hangup.swap(false, Ordering::Relaxed) {
            match sink.reopen() {
                Ok(true) => {
                    rotated = Some(sink.last_position());
                    say!("SIGHUP: reopened {}", args.output);
                }
                Ok(false) => {}
                Err(e) => {
                    outcome = Err(Failure::usage(e.to_string()));
                    break;
                }
            }
        }
        let saved = match (&cp, sink.keeps_checkpoint()) {
            (Some(cp), false) => {
                let mut cp = cp.clone();
                if let Some(r) = &rotated {
                    cp.rotated_after.clone_from(r);
                }
                store.save(&cp).map_err(|e| Failure {
                    code: exit::USAGE,
                    message: format!("checkpoint: {e}"),
                })
            }
            _ => Ok(()),
        };
        if let Some(r) = rotated {
            rotated_after = r;
        }
        if let Err(e) = saved {
            outcome = Err(e);
            break;
        }
        if let Some(snap) = &snapshot {
            telemetry.snapshot(snap.progress());
        }
        telemetry.update(
            capture.status(),
            Volumes::of(&capture),
            &mut tally,
            cp.is_some(),
            false,
        );
        for letter in capture.take_dead_letters() {
            if dead_letters.is_none() {
                dead_letters =
                    Some(
                        DeadLetterFile::open(&args.dead_letter).map_err(|e| Failure {
                            code: exit::USAGE,
                            message: e.to_string(),
                        })?,
                    );
            }
            if let Some(d) = dead_letters.as_mut() {
                d.write(&letter).map_err(|e| Failure {
                    code: exit::USAGE,
                    message: e.to_string(),
                })?;
            }
            say!(
                "SCN {} XID {}: unparseable row sent to {}",
                letter.scn,
                letter.xid,
                args.dead_letter.display()
            );
        }
        for f in capture.take_findings() {
            telemetry.finding(f.finding.code());
            say!(
                "finding at SCN {} (XID {}): {}",
                f.scn,
                f.xid,
                f.finding.message()
            );
        }
        for w in capture.take_warnings() {
            say!("warning: {}", w.message());
        }
        if last_status.elapsed() >= args.status_every {
            // The bars show the same on a terminal.
            let line = snapshot
                .as_ref()
                .filter(|_| bars.as_ref().is_none_or(|b| !b.drawn()))
                .and_then(|s| {
                    progress::snapshot_status_line(
                        s.progress(),
                        snapshot_rows_before,
                        snapshot_started.elapsed().as_secs_f64(),
                    )
                });
            if let Some(line) = line {
                say!("{line}");
            }
            let s = capture.status();
            // The time lag is what an operator compares with an SLA: as of
            // now, counting the time the last window took to read.
            let lag_s = s.time_lag_s();
            let time_lag = lag_s.map_or_else(|| "?".to_string(), |t| format!("{t}s"));
            log::notice(
                "run",
                Level::Info,
                &format!(
                    "mined SCN {} (lag {time_lag}, {} SCNs), restart SCN {}, {} open transactions, {} events written",
                    s.mined_scn,
                    s.scn_lag(),
                    s.restart_scn,
                    s.open_transactions,
                    written
                ),
                None,
                &[
                    ("mined_scn", s.mined_scn.into()),
                    ("lag_seconds", lag_s.into()),
                    ("lag_scn", s.scn_lag().into()),
                    ("restart_scn", s.restart_scn.into()),
                    ("open_transactions", s.open_transactions.into()),
                    ("events_written", written.into()),
                ],
            );
            last_status = Instant::now();
        }
        let stamp = Stamp {
            stream_id: &stream_id,
            origin: &origin,
            rewind_points: &rewind_points,
            rotated_after: &rotated_after,
        };
        let mut snap_run = SnapshotRun {
            capture: &mut capture,
            sink: sink.as_mut(),
            written: &mut written,
            limit,
            store: &store,
            stamp: &stamp,
            bars: bars.as_ref(),
        };
        match progress {
            Ok(Progress::Finished) => {
                // The stream stopped at --until-scn, having emitted every
                // commit up to it: the rest of the snapshot reads there.
                if let Some(snap) = snapshot.as_mut().filter(|s| !s.finished()) {
                    if let Err(e) = snap_run.finish_at_until(snap, &stop) {
                        if e.is_reader_gone() {
                            reader_gone = true;
                        } else {
                            outcome = Err(e);
                        }
                    } else if snap.finished() {
                        let secs = snapshot_started.elapsed().as_secs_f64();
                        say!(
                            "{}",
                            snapshot_done_line(snap.progress(), snapshot_rows_before, secs)
                        );
                    }
                }
                break;
            }
            Ok(Progress::Idle | Progress::Advanced { .. })
                if snapshot.as_ref().is_some_and(|s| !s.finished()) =>
            {
                let Some(snap) = snapshot.as_mut() else {
                    break;
                };
                match snap_run.step(snap) {
                    Err(e) if e.is_reader_gone() => {
                        reader_gone = true;
                        break;
                    }
                    Err(e) => {
                        outcome = Err(e);
                        break;
                    }
                    Ok(_) if snap.finished() => {
                        let secs = snapshot_started.elapsed().as_secs_f64();
                        say!(
                            "{}",
                            snapshot_done_line(snap.progress(), snapshot_rows_before, secs)
                        );
                        if mode == SnapshotMode::InitialOnly {
                            say!(
                                "--snapshot initial-only stops here; run again \
                                 without it to stream on from the checkpoint"
                            );
                            break;
                        }
                    }
                    // No pause while the snapshot has chunks to read.
                    Ok(_) => {}
                }
            }
            Ok(Progress::Idle | Progress::Advanced { .. }) => {
                // In short steps, so Ctrl-C is not kept waiting by a long pause.
                let until = Instant::now() + capture.pause();
                while !stop.load(Ordering::Relaxed) && Instant::now() < until {
                    std::thread::sleep(Duration::from_millis(50).min(until - Instant::now()));
                }
            }
            Ok(Progress::Retrying) => {
                if let cdcctl::engine::metrics::MiningState::Retrying {
                    error,
                    advice,
                    attempt,
                } = &capture.status().state
                {
                    telemetry.source_error(error);
                    log::notice(
                        "run",
                        Level::Warn,
                        &format!("{error}; reconnecting (attempt {attempt})"),
                        advice.as_deref(),
                        &[("attempt", (*attempt).into())],
                    );
                }
                std::thread::sleep(Duration::from_secs(1));
            }
            Err(CaptureError::Txn(TxnError::Sink(_))) if sink_error.is_none() => break,
            Err(CaptureError::Txn(TxnError::Sink(_)))
                if sink_error.as_ref().is_some_and(is_closed_pipe) =>
            {
                reader_gone = true;
                break;
            }
            Err(CaptureError::Txn(TxnError::Sink(_))) => {
                outcome = Err(Failure {
                    code: exit::USAGE,
                    message: sink_error.map(|e| e.to_string()).unwrap_or_default(),
                });
                break;
            }
            Err(e) => {
                outcome = Err(capture_failure(&e));
                break;
            }
        }
    }
    if reader_gone {
        // The checkpoint stored is the one of the last batch the reader
        // received whole: a resumed run writes the rest again.
        say!(
            "the reader of stdout went away after {written} events; checkpoint \
             saved in {} at the last batch it received",
            args.checkpoint.display()
        );
    } else if stop.load(Ordering::Relaxed) {
        say!(
            "stopped by a signal after {written} events; checkpoint saved {}",
            if sink.keeps_checkpoint() {
                checkpoint_name.clone()
            } else {
                format!("in {checkpoint_name}")
            }
        );
    }
    if sink.skipped_duplicates() > 0 {
        say!(
            "{} events were already in the output and were not written again",
            sink.skipped_duplicates()
        );
    }
    if sink.schema_changes_left_out() > 0 {
        say!(
            "{} schema-change (DDL) events left out (--schema-changes skip)",
            sink.schema_changes_left_out()
        );
    }
    telemetry.finish(
        capture.status(),
        Volumes::of(&capture),
        outcome.as_ref().err().map(|f| f.message.clone()),
    );
    outcome.map(|()| exit::code(exit::OK))
}

/// The tables a snapshot reads and what its events carry.
struct OpenedTables {
    /// In dictionary order, with `NUM_ROWS` when known.
    names: Vec<(cdcctl::source::TableName, Option<u64>)>,
    key_columns: std::collections::BTreeMap<cdcctl::source::TableName, Vec<String>>,
    binary_columns: std::collections::BTreeMap<cdcctl::source::TableName, Vec<String>>,
    server_name: String,
    db: String,
    dialect: cdcctl::source::Dialect,
}

/// The snapshot this run takes or resumes, if any: an unfinished one in the
/// checkpoint is resumed (after the rows the output already holds), a new
/// one is planned on a fresh start in a snapshotting mode.
fn plan_snapshot(
    args: &RunArgs,
    mode: SnapshotMode,
    fresh: bool,
    stored: Option<SnapshotProgress>,
    tables: &OpenedTables,
) -> Result<Option<Snapshotter>, Failure> {
    let config = SnapshotConfig {
        chunk_rows: usize::try_from(args.snapshot_chunk_rows).unwrap_or(usize::MAX),
        server_name: tables.server_name.clone(),
        db: tables.db.clone(),
        binary_columns: tables.binary_columns.clone(),
        dialect: tables.dialect,
    };
    let progress = match stored {
        Some(p) if !p.finished() && mode == SnapshotMode::Never && args.snapshot.is_some() => {
            say!(
                "warning: the checkpoint holds an unfinished snapshot ({} rows so far); \
                 --snapshot never leaves the rest of it unread",
                p.rows()
            );
            return Ok(None);
        }
        Some(mut p) => {
            if !p.finished() && args.output_is_file() {
                let tail = cdcctl::sink::last_snapshot_row(Path::new(&args.output))
                    .map_err(|e| Failure::usage(format!("output {}: {e}", args.output)))?;
                if let Some(row) = tail {
                    let name = cdcctl::source::TableName {
                        owner: row["source"]["schema"].as_str().unwrap_or_default().into(),
                        table: row["source"]["table"].as_str().unwrap_or_default().into(),
                    };
                    let keys = tables.key_columns.get(&name).cloned().unwrap_or_default();
                    p.account_for_output_tail(&row, &keys)
                        .map_err(|e| Failure::usage(e.to_string()))?;
                }
            }
            let started = p.rows() > 0 || p.tables.iter().any(|t| t.after_key.is_some());
            if !p.finished() && started {
                say!(
                    "resuming the snapshot ({} rows so far, {} chunks)",
                    p.rows(),
                    p.chunks
                );
            } else if !p.finished() {
                say!("starting the snapshot of {} table(s)", p.tables.len());
            }
            p
        }
        None if fresh && mode != SnapshotMode::Never => {
            if tables.names.is_empty() {
                say!("no table to snapshot; streaming only");
                return Ok(None);
            }
            SnapshotProgress::new(tables.names.clone())
        }
        None => return Ok(None),
    };
    Ok(Some(Snapshotter::new(progress, config)))
}

/// What every stored checkpoint carries besides the capture's position.
struct Stamp<'a> {
    stream_id: &'a Option<String>,
    origin: &'a Origin,
    rewind_points: &'a [cdcctl::engine::checkpoint::RewindPoint],
    rotated_after: &'a Option<cdcctl::engine::checkpoint::EventPosition>,
}

impl Stamp<'_> {
    /// The capture's position with the output's identity and last event,
    /// the snapshot's progress and the last rotation; `None` at restart
    /// SCN 0 (no window mined yet: the stored checkpoint stands).
    fn checkpoint<S: cdcctl::source::RedoSource>(
        &self,
        capture: &Capture<S>,
        sink: &dyn EventSink,
        snapshot: Option<&Snapshotter>,
    ) -> Option<Checkpoint> {
        let mut cp = capture.checkpoint();
        if cp.restart_scn == 0 {
            return None;
        }
        cp.stream_id.clone_from(self.stream_id);
        self.origin.stamp(&mut cp);
        cp.last_event = sink.last_position();
        cp.rewind_points = self.rewind_points.to_vec();
        cp.snapshot = snapshot.map(|s| s.progress().clone());
        cp.rotated_after.clone_from(self.rotated_after);
        Some(cp)
    }

    /// Stores the checkpoint: in the file, or with the sink when the sink
    /// keeps it (Kafka: its own transaction, after the events').
    fn save<S: cdcctl::source::RedoSource>(
        &self,
        store: &FileCheckpointStore,
        capture: &Capture<S>,
        sink: &mut dyn EventSink,
        snapshot: Option<&Snapshotter>,
    ) -> Result<(), Failure> {
        let Some(cp) = self.checkpoint(capture, sink, snapshot) else {
            return Ok(());
        };
        let saved = if sink.keeps_checkpoint() {
            sink.commit_with(Some(&cp)).map_err(|e| e.to_string())
        } else {
            store.save(&cp).map_err(|e| e.to_string())
        };
        saved.map_err(|e| Failure {
            code: exit::USAGE,
            message: format!("checkpoint: {e}"),
        })
    }
}

/// One snapshot chunk between two polls of the stream.
struct SnapshotRun<'a, S: cdcctl::source::RedoSource> {
    capture: &'a mut Capture<S>,
    sink: &'a mut dyn EventSink,
    written: &'a mut u64,
    limit: u64,
    store: &'a FileCheckpointStore,
    stamp: &'a Stamp<'a>,
    bars: Option<&'a progress::SnapshotBars>,
}

impl<S: cdcctl::source::RedoSource> SnapshotRun<'_, S> {
    /// Reads the next chunk at the stream's consistent SCN (when there is
    /// one the snapshot may read at), writes it, makes it durable and
    /// checkpoints it. `Ok(None)`: the stream has to move on first.
    fn step(&mut self, snap: &mut Snapshotter) -> Result<Option<Step>, Failure> {
        // Not below the output's end either: after a restart the stream
        // re-mines what the output already holds, and rows positioned below
        // its end would be dropped as duplicates of events written before.
        let output_end = self.sink.last_position().map_or(0, |p| p.commit_scn);
        let Some(scn) = self
            .capture
            .consistent_scn()
            .filter(|s| snap.can_read_at(*s) && *s >= output_end)
        else {
            return Ok(None);
        };
        let ts_ms = self
            .capture
            .status()
            .current_time
            .map_or(0, |t| t.and_utc().timestamp_millis());
        let mut sink_error = None;
        let (sink, written, limit) = (&mut *self.sink, &mut *self.written, self.limit);
        let step = snap.step(
            self.capture.source_mut(),
            scn,
            ts_ms,
            &mut |e: CapturedEvent| -> Result<(), TxnSinkError> {
                if *written >= limit {
                    return Err("event limit reached".into());
                }
                let skipped = sink.skipped_duplicates();
                sink.write(&e).map_err(|err| {
                    let msg = err.to_string();
                    sink_error = Some(err);
                    TxnSinkError::from(msg)
                })?;
                if sink.skipped_duplicates() == skipped {
                    *written += 1;
                }
                Ok(())
            },
        );
        for n in snap.take_notices() {
            match self.bars.filter(|b| b.drawn()) {
                Some(b) => b.println(&format!("cdcctl run: snapshot: {}", n.message())),
                None => say!("snapshot: {}", n.message()),
            }
        }
        if let Some(b) = self.bars {
            b.update(snap.progress());
        }
        self.sink.commit().map_err(|e| Failure::of_sink(&e))?;
        let step = match step {
            Ok(step) => step,
            Err(_) if sink_error.is_none() && *self.written >= self.limit => return Ok(None),
            Err(_) if sink_error.as_ref().is_some_and(is_closed_pipe) => {
                return Err(Failure::reader_gone())
            }
            Err(e) => {
                return Err(Failure {
                    code: exit::UNTRUSTED_DATA,
                    message: sink_error.map_or_else(|| e.to_string(), |s| s.to_string()),
                })
            }
        };
        if step == Step::Reconnect {
            self.capture.reconnect();
        }
        self.stamp
            .save(self.store, self.capture, &mut *self.sink, Some(snap))?;
        Ok(Some(step))
    }

    /// Reads the remaining chunks at --until-scn, where the stream stopped.
    fn finish_at_until(
        &mut self,
        snap: &mut Snapshotter,
        stop: &AtomicBool,
    ) -> Result<(), Failure> {
        const RETRIES: u32 = 5;
        let mut retries = 0;
        while !snap.finished() && !stop.load(Ordering::Relaxed) && *self.written < self.limit {
            match self.step(snap)? {
                Some(Step::Retry) => {
                    retries += 1;
                    if retries > RETRIES {
                        return Err(Failure {
                            code: exit::UNTRUSTED_DATA,
                            message: "the snapshot cannot be completed at --until-scn: every read \
                                      there fails (its undo is gone, or the table's segments \
                                      changed after it); run with a later --until-scn"
                                .into(),
                        });
                    }
                }
                Some(_) => retries = 0,
                None => break,
            }
        }
        Ok(())
    }
}

/// Said once when the snapshot's last table is done: rows in all, and the
/// rate of this run's part (a resumed snapshot read the rest before).
fn snapshot_done_line(p: &SnapshotProgress, rows_before: u64, secs: f64) -> String {
    let read = p.rows().saturating_sub(rows_before);
    let rate = if secs > 0.0 { read as f64 / secs } else { 0.0 };
    format!(
        "snapshot complete: {} rows in all; this run read {read} rows in {secs:.1} s ({rate:.0} rows/s)",
        p.rows()
    )
}

/// Why the redo from `restart_scn` can no longer be mined (archived logs
/// deleted, a sequence gap), or `None` when it can.
fn restart_redo_gone(
    source: &mut dyn cdcctl::source::RedoSource,
    restart_scn: u64,
    current_scn: u64,
    planner: &PlannerConfig,
) -> Result<Option<String>, Failure> {
    use cdcctl::engine::session::{plan, PlanError};
    let inventory = source.log_inventory().map_err(|e| Failure {
        code: exit::for_source(&e),
        message: exit::with_advice(&e, e.advice().as_deref()),
    })?;
    Ok(match plan(&inventory, restart_scn, current_scn, planner) {
        Err(e @ (PlanError::StartScnNotCovered { .. } | PlanError::SequenceGap { .. })) => {
            Some(e.to_string())
        }
        _ => None,
    })
}

/// The Kafka sink's configuration with `--sink kafka`, after checking the
/// file-sink options are not given with it, and the Kafka options not
/// without it.
fn kafka_config(args: &RunArgs) -> Result<Option<cdcctl::sink::kafka::KafkaConfig>, Failure> {
    if args.kafka.sink != "kafka" {
        if args.kafka.brokers.is_some() {
            return Err(Failure::usage(
                "--brokers is for --sink kafka; add --sink kafka to write to Kafka",
            ));
        }
        return Ok(None);
    }
    if args.output != "-" {
        return Err(Failure::usage(format!(
            "--output {} is for --sink file; --sink kafka writes to the topics \
             {}.SCHEMA.TABLE",
            args.output, args.server_name
        )));
    }
    if args.rewind {
        return Err(Failure::usage(
            "--rewind is for --sink file; with --sink kafka the checkpoint is committed with \
             the events, so Kafka cannot fall behind it",
        ));
    }
    kafka::config(&args.kafka, &args.server_name, args.forms.forms())
        .map(Some)
        .map_err(Failure::usage)
}

/// The destination as `status` names it.
fn sink_label(args: &RunArgs) -> String {
    if args.kafka.sink == "kafka" {
        return format!(
            "kafka {} ({}.SCHEMA.TABLE)",
            args.kafka.brokers.as_deref().unwrap_or_default(),
            args.server_name
        );
    }
    match args.output.as_str() {
        "-" => "stdout".into(),
        path => format!("file {path}"),
    }
}
