//! `cdcctl run`: the capture daemon. Mines changes, writes them to a sink,
//! and advances a checkpoint only after the sink made them durable.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;

use crate::cli::duration::parse_duration;
use crate::cli::{exit, source, tables, GlobalArgs};
use cdcctl::engine::capture::{
    Capture, CaptureConfig, CaptureError, PollConfig, Progress, StartAt,
};
use cdcctl::engine::checkpoint::{Checkpoint, EventPosition, FileCheckpointStore};
use cdcctl::engine::event::CapturedEvent;
use cdcctl::engine::session::PlannerConfig;
use cdcctl::engine::txn::{BufferConfig, OnParseError, SinkError as TxnSinkError, TxnError};
use cdcctl::sink::lock::WriterLock;
use cdcctl::sink::stream::{self, Verdict};
use cdcctl::sink::{DeadLetterFile, EventSink, JsonLinesSink};

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Tables to capture: [SCHEMA.]TABLE, comma-separated or repeated; a bare
    /// TABLE is looked up in every schema you can see; `%` and `_` are
    /// wildcards, in the schema too. Default: every table LogMiner returns.
    #[arg(value_delimiter = ',')]
    pub tables: Vec<String>,
    /// Where events go: a file (appended, JSON lines) or `-` for stdout.
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
    /// Dead-letter file for `--on-parse-error warn`.
    #[arg(long, default_value = "cdcctl-dead-letter.jsonl")]
    pub dead_letter: PathBuf,
    #[command(flatten)]
    pub forms: crate::cli::forms::FormsArgs,
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
    /// Print a progress line on stderr this often.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "10s")]
    pub status_every: Duration,
}

pub fn run(global: &GlobalArgs, args: &RunArgs) -> ExitCode {
    if !global.source_explicit {
        // A daemon that silently captured the built-in simulator would feed
        // made-up changes to whatever reads its sink.
        eprintln!(
            "cdcctl run: no --source given; name the database to capture with \
             --source oracle://USER@HOST:PORT/SERVICE (or CDCCTL_SOURCE), or \
             --source sim[:SCENARIO] to capture the built-in simulator on purpose"
        );
        return exit::code(exit::USAGE);
    }
    match run_inner(global, args) {
        Ok(code) => code,
        Err(Failure { code, message }) => {
            eprintln!("cdcctl run: {message}");
            exit::code(code)
        }
    }
}

struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    fn usage(message: impl Into<String>) -> Self {
        Self {
            code: exit::USAGE,
            message: message.into(),
        }
    }
}

fn capture_failure(e: &CaptureError) -> Failure {
    Failure {
        code: exit::for_capture(e),
        message: exit::with_advice(e, e.advice().as_deref()),
    }
}

/// SIGINT and SIGTERM both ask for a clean stop: the current batch is
/// finished and checkpointed. A second signal ends the process at once
/// (the checkpoint on disk is consistent at every instant).
fn stop_on_signals() -> std::io::Result<Arc<AtomicBool>> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [SIGINT, SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(sig, 130, Arc::clone(&stop))?;
        signal_hook::flag::register(sig, Arc::clone(&stop))?;
    }
    Ok(stop)
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
                eprintln!("cdcctl run: {e}; reconnecting (attempt {attempt})");
                std::thread::sleep(Duration::from_secs(1));
                if let Err(r) = source.reconnect() {
                    eprintln!("cdcctl run: reconnect failed: {r}");
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
    if args.output == "-" {
        return Ok(OpenedOutput {
            sink: Box::new(JsonLinesSink::stdout().with_forms(args.forms.forms())),
            stream_id: existing.and_then(|c| c.stream_id.clone()),
            rewind: None,
        });
    }
    let path = Path::new(&args.output);
    let file = JsonLinesSink::file(path)
        .map_err(|e| Failure::usage(e.to_string()))?
        .with_forms(args.forms.forms());
    if file.torn_bytes_cut() > 0 {
        eprintln!(
            "cdcctl run: cut {} bytes of a torn last line from {} (an interrupted write)",
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
    eprintln!(
        "cdcctl run: {gap}; rewinding to restart SCN {} (commit SCN {}) to write them again",
        point.restart_scn, point.commit_scn
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
    match e {
        cdcctl::sink::SinkError::Io { source, .. } => {
            source.kind() == std::io::ErrorKind::BrokenPipe
        }
    }
}

fn take_writer_locks(args: &RunArgs) -> Result<Vec<WriterLock>, Failure> {
    let mut locks = vec![WriterLock::acquire(&args.checkpoint, "checkpoint")];
    if args.output != "-" {
        locks.push(WriterLock::acquire(Path::new(&args.output), "output"));
    }
    locks
        .into_iter()
        .map(|l| l.map_err(|e| Failure::usage(e.to_string())))
        .collect()
}

fn run_inner(global: &GlobalArgs, args: &RunArgs) -> Result<ExitCode, Failure> {
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
    // Held until the process ends: a second writer on either file would
    // duplicate or interleave events.
    let _locks = take_writer_locks(args)?;
    let store = FileCheckpointStore::new(&args.checkpoint);
    match store.remove_stale_temp_files() {
        Ok(0) => {}
        Ok(n) => {
            eprintln!("cdcctl run: removed {n} temporary file(s) of an interrupted checkpoint save")
        }
        Err(e) => return Err(Failure::usage(e.to_string())),
    }
    let existing = store
        .load()
        .map_err(|e| Failure::usage(format!("checkpoint {}: {e}", args.checkpoint.display())))?;
    if existing.is_some() && args.from_scn.is_some() {
        return Err(Failure::usage(format!(
            "--from-scn conflicts with the existing checkpoint {}: remove the file to start over, \
             or drop --from-scn to resume",
            args.checkpoint.display()
        )));
    }
    let OpenedOutput {
        mut sink,
        stream_id,
        rewind,
    } = open_output(args, existing.as_ref())?;
    let fresh = existing.is_none();
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
    let start = match (rewind, existing, args.from_scn) {
        (Some(cp), _, _) => {
            store
                .overwrite(&cp)
                .map_err(|e| Failure::usage(e.to_string()))?;
            rewind_points.clone_from(&cp.rewind_points);
            StartAt::Checkpoint(cp)
        }
        (None, Some(cp), _) => {
            eprintln!(
                "cdcctl run: resuming from {} (restart SCN {}, commit SCN {})",
                args.checkpoint.display(),
                cp.restart_scn,
                cp.commit_scn
            );
            StartAt::Checkpoint(cp)
        }
        (None, None, Some(scn)) => StartAt::Scn(scn),
        (None, None, None) => StartAt::Now,
    };
    let opened = source::open_redo_source_at(
        &global.source,
        global.oracle_client_lib.clone(),
        &specs,
        args.pdb.as_deref(),
        resume_scn,
        true,
    )
    .map_err(|e| Failure {
        code: e.exit_code,
        message: e.message,
    })?;
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
            ..PlannerConfig::default()
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
    sink.set_column_kinds(column_kinds);
    let mut capture = Capture::new(source, config).map_err(|e| capture_failure(&e))?;
    if fresh {
        // Stored before any event is written, so an output never holds
        // events without a checkpoint naming its stream.
        let mut initial = Checkpoint::new(capture.status().restart_scn, 0, Vec::new(), None);
        initial.stream_id.clone_from(&stream_id);
        origin.stamp(&mut initial);
        if let Some(p) = initial.rewind_point() {
            stream::push_rewind_point(&mut rewind_points, p);
        }
        initial.rewind_points.clone_from(&rewind_points);
        store
            .save(&initial)
            .map_err(|e| Failure::usage(format!("checkpoint: {e}")))?;
    }
    let stop =
        stop_on_signals().map_err(|e| Failure::usage(format!("cannot handle signals: {e}")))?;
    let mut dead_letters: Option<DeadLetterFile> = None;
    let mut written: u64 = 0;
    let mut last_status = Instant::now();
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
            }
            Ok(())
        });
        // Events first, then the checkpoint that covers them.
        if let Err(e) = sink.commit() {
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
        let mut cp = capture.checkpoint();
        if written > written_before && before.restart_scn > 0 {
            if let Some(p) = before.rewind_point() {
                stream::push_rewind_point(&mut rewind_points, p);
            }
        }
        cp.stream_id.clone_from(&stream_id);
        origin.stamp(&mut cp);
        cp.last_event = sink.last_position();
        cp.rewind_points.clone_from(&rewind_points);
        // Restart SCN 0: no window mined yet, the stored checkpoint stands.
        let saved = if cp.restart_scn == 0 {
            Ok(())
        } else {
            store.save(&cp)
        };
        if let Err(e) = saved {
            outcome = Err(Failure {
                code: exit::USAGE,
                message: format!("checkpoint: {e}"),
            });
            break;
        }
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
            eprintln!(
                "cdcctl run: SCN {} XID {}: unparseable row sent to {}",
                letter.scn,
                letter.xid,
                args.dead_letter.display()
            );
        }
        for f in capture.take_findings() {
            eprintln!(
                "cdcctl run: finding at SCN {} (XID {}): {}",
                f.scn,
                f.xid,
                f.finding.message()
            );
        }
        for w in capture.take_warnings() {
            eprintln!("cdcctl run: warning: {}", w.message());
        }
        if last_status.elapsed() >= args.status_every {
            let s = capture.status();
            // The time lag is what an operator compares with an SLA.
            let time_lag = s
                .time_lag_s()
                .map_or_else(|| "?".to_string(), |t| format!("{t}s"));
            eprintln!(
                "cdcctl run: mined SCN {} (lag {time_lag}, {} SCNs), restart SCN {}, {} open transactions, {} events written",
                s.mined_scn,
                s.scn_lag(),
                s.restart_scn,
                s.open_transactions,
                written
            );
            last_status = Instant::now();
        }
        match progress {
            Ok(Progress::Finished) => break,
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
                    eprintln!("cdcctl run: {error}; reconnecting (attempt {attempt})");
                    if let Some(a) = advice {
                        eprintln!("  advice: {a}");
                    }
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
        eprintln!(
            "cdcctl run: the reader of stdout went away after {written} events; checkpoint \
             saved in {} at the last batch it received",
            args.checkpoint.display()
        );
    } else if stop.load(Ordering::Relaxed) {
        eprintln!(
            "cdcctl run: stopped by a signal after {written} events; checkpoint saved in {}",
            args.checkpoint.display()
        );
    }
    if sink.skipped_duplicates() > 0 {
        eprintln!(
            "cdcctl run: {} events were already in the output and were not written again",
            sink.skipped_duplicates()
        );
    }
    outcome.map(|()| exit::code(exit::OK))
}
