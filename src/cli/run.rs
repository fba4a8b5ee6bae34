//! `cdcctl run`: the capture daemon's command line. Its options and config
//! file map to one [`DaemonConfig`]; the daemon ([`cdcctl::daemon`]) mines,
//! writes and checkpoints; its notices and outcome become stderr lines and
//! an exit code here.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Duration;

use clap::Args;

use crate::cli::duration::parse_duration;
use crate::cli::log::{self, Level};
use crate::cli::{exit, kafka, signals, source, GlobalArgs};
use cdcctl::connect::{tables, CaptureSource};
use cdcctl::daemon::{self, DaemonConfig, Notice, Reporter, SinkChoice};
use cdcctl::engine::capture::PollConfig;
use cdcctl::engine::snapshot::{SnapshotMarks, SnapshotMode, SnapshotProgress};
use cdcctl::engine::txn::OnParseError;
use cdcctl::output::progress::SnapshotBars;
use cdcctl::sink::schema_changes::SchemaChanges;

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
    /// With --lob capture, the MiB of LOB values remembered in all, per
    /// row, from inserts, snapshot rows and the changes that wrote them, to
    /// give to later updates that leave the LOB alone (which the redo
    /// carries as the unavailable marker); the oldest row goes first, 0
    /// remembers none. A row not seen by this run keeps the marker.
    #[arg(long, value_name = "MIB", default_value_t = 64)]
    pub lob_memory_mb: u64,
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
    /// window is one sink commit (one Kafka transaction with --sink kafka)
    /// up to --max-commit-events, so fewer logs mean smaller transactions
    /// and less to redo after a crash.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub max_logs_per_window: u64,
    /// Events one sink commit (one Kafka transaction) holds at most. A
    /// window with more, such as one database transaction of millions of
    /// rows, is committed in parts, each with a checkpoint a restart
    /// resumes inside it from; with Kafka a part also closes before a
    /// third of transaction.timeout.ms has passed.
    #[arg(long, value_name = "N", default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_commit_events: u64,
    /// Archive destination (V$ARCHIVE_DEST_STATUS.DEST_NAME) to read archives from.
    #[arg(long)]
    pub archive_dest: Option<String>,
    /// The PDB to capture from: when connected to CDB$ROOT, its tables are
    /// read inside it and only its changes (SRC_CON_NAME) are kept. Upper
    /// case unless written in double quotes; checked against V$PDBS.
    #[arg(long)]
    pub pdb: Option<String>,
    /// `source.name` of the events (the logical server name / topic
    /// prefix). Required with --sink kafka, where it also names the
    /// transactional id and the checkpoint's topic; `cdcctl` otherwise.
    #[arg(long)]
    pub server_name: Option<String>,
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
    /// Database sessions reading snapshot chunks beside the stream's
    /// mining, each its own chunk of the table at the same SCN (0: read on
    /// the mining session, between windows). A table without a key is read
    /// by one of them.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(0..=8))]
    pub snapshot_readers: u64,
    /// How `source.snapshot` marks read rows: `positions` (Debezium's
    /// initial-snapshot marks: first, first_in_data_collection, true,
    /// last_in_data_collection, last) or `incremental` (every row, as
    /// Debezium marks a chunked snapshot read beside the stream).
    #[arg(long, value_name = "MARKS", default_value = "positions",
          value_parser = parse_snapshot_marks)]
    pub snapshot_marks: SnapshotMarks,
    /// Print a progress line on stderr this often.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "10s")]
    pub status_every: Duration,
    /// Serve Prometheus metrics at http://ADDR/metrics and the status
    /// document at /status.json (e.g. 127.0.0.1:9464; port 0 picks one).
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<String>,
}

fn parse_schema_changes(s: &str) -> Result<SchemaChanges, String> {
    s.parse()
}

fn parse_snapshot_mode(s: &str) -> Result<SnapshotMode, String> {
    s.parse()
}

fn parse_snapshot_marks(s: &str) -> Result<SnapshotMarks, String> {
    s.parse()
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
    let signals = match signals::for_run() {
        Ok(s) => s,
        Err(e) => return usage(&format!("cannot handle signals: {e}")),
    };
    let config = match daemon_config(global, args) {
        Ok(c) => c,
        Err(message) => return usage(&message),
    };
    let reporter = RunReporter::default();
    match daemon::run(&config, &signals, &reporter) {
        Ok(_) => exit::code(exit::OK),
        Err(e) => {
            reporter.notice(Notice {
                level: daemon::Level::Error,
                message: e.to_string(),
                advice: None,
                fields: Vec::new(),
            });
            exit::code(e.exit_code())
        }
    }
}

fn usage(message: &str) -> ExitCode {
    log::notice("run", Level::Error, message, None, &[]);
    exit::code(exit::USAGE)
}

/// The options as the daemon's configuration.
fn daemon_config(global: &GlobalArgs, args: &RunArgs) -> Result<DaemonConfig, String> {
    let specs = args
        .tables
        .iter()
        .filter(|t| !t.trim().is_empty())
        .map(|t| tables::parse_spec(t))
        .collect::<Result<Vec<_>, _>>()?;
    let source = CaptureSource {
        spec: global.source.clone(),
        client_lib: global.oracle_client_lib.clone(),
        tables: specs,
        pdb: args.pdb.clone(),
        every_table: true,
        prompt: source::prompt_password,
    };
    let mut c = DaemonConfig::new(source, sink(args)?, args.checkpoint.clone());
    c.from_scn = args.from_scn;
    c.until_scn = args.until_scn;
    c.count = args.count;
    c.on_parse_error = if args.on_parse_error == "warn" {
        OnParseError::Warn
    } else {
        OnParseError::Fail
    };
    c.relaxed_quotes = args.relaxed_quotes;
    c.lob = args.lob.into();
    c.lob_memory_mb = args.lob_memory_mb;
    c.schema_changes = args.schema_changes.clone();
    c.dead_letter.clone_from(&args.dead_letter);
    c.forms = args.forms.forms();
    c.spill_mb = args.spill_mb;
    c.spill_dir.clone_from(&args.spill_dir);
    c.abandon_after = args.abandon_after;
    c.max_logs_per_window = usize::try_from(args.max_logs_per_window).unwrap_or(4);
    c.max_commit_events = usize::try_from(args.max_commit_events).unwrap_or(usize::MAX);
    c.archive_dest.clone_from(&args.archive_dest);
    c.server_name = args.server_name.clone().unwrap_or_else(|| "cdcctl".into());
    c.polling = PollConfig {
        max_idle_pause: args.max_idle_pause,
        max_session_age: args.max_session_age,
        ..PollConfig::default()
    };
    c.rewind = args.rewind;
    c.snapshot = args.snapshot;
    c.snapshot_chunk_rows = usize::try_from(args.snapshot_chunk_rows).unwrap_or(usize::MAX);
    c.snapshot_marks = args.snapshot_marks;
    c.snapshot_readers = usize::try_from(args.snapshot_readers).unwrap_or(1);
    c.status_every = args.status_every;
    c.metrics.clone_from(&args.metrics);
    Ok(c)
}

/// The sink the options name, after checking the file-sink options are not
/// given with Kafka, and the Kafka options not without it.
fn sink(args: &RunArgs) -> Result<SinkChoice, String> {
    if args.kafka.sink != "kafka" {
        if args.kafka.brokers.is_some() {
            return Err("--brokers is for --sink kafka; add --sink kafka to write to Kafka".into());
        }
        return Ok(SinkChoice::File {
            output: args.output.clone(),
        });
    }
    if args.output != "-" {
        return Err(format!(
            "--output {} is for --sink file; --sink kafka writes to the topics \
             {}.SCHEMA.TABLE",
            args.output,
            args.server_name.as_deref().unwrap_or("PREFIX")
        ));
    }
    if args.rewind {
        return Err(
            "--rewind is for --sink file; with --sink kafka the checkpoint is committed with \
             the events, so Kafka cannot fall behind it"
                .into(),
        );
    }
    let server_name = args.server_name.as_deref().ok_or(
        "--sink kafka needs --server-name NAME: the topic prefix, the transactional id and the \
         checkpoint's topic all follow from it, and two captures of one database under the same \
         name would fence each other and resume from each other's checkpoint",
    )?;
    kafka::config(&args.kafka, server_name, args.forms.forms()).map(SinkChoice::Kafka)
}

/// `run`'s notices on stderr (text or JSON lines), and the snapshot's
/// progress as bars on a terminal.
#[derive(Default)]
struct RunReporter {
    bars: Mutex<Option<SnapshotBars>>,
}

impl Reporter for RunReporter {
    fn notice(&self, n: Notice) {
        let bars = self
            .bars
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // Above the bars while they are drawn, so they stay whole.
        if let Some(b) = bars.as_ref().filter(|b| b.drawn()) {
            b.println(&format!("cdcctl run: {}", n.message));
            return;
        }
        let level = match n.level {
            daemon::Level::Info => Level::Info,
            daemon::Level::Warn => Level::Warn,
            daemon::Level::Error => Level::Error,
        };
        log::notice("run", level, &n.message, n.advice.as_deref(), &n.fields);
    }

    fn snapshot(&self, progress: &SnapshotProgress) -> bool {
        if log::json() {
            return false;
        }
        let mut bars = self
            .bars
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let b = bars.get_or_insert_with(|| SnapshotBars::new(progress));
        b.update(progress);
        b.drawn()
    }
}
