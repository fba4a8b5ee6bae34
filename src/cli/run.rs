//! `cdcctl run`: the capture daemon. Mines changes, writes them to a sink,
//! and advances a checkpoint only after the sink made them durable.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;

use crate::cli::duration::parse_duration;
use crate::cli::{exit, source, GlobalArgs};
use cdcctl::engine::capture::{Capture, CaptureConfig, CaptureError, Progress, StartAt};
use cdcctl::engine::checkpoint::FileCheckpointStore;
use cdcctl::engine::event::CapturedEvent;
use cdcctl::engine::session::PlannerConfig;
use cdcctl::engine::txn::{BufferConfig, OnParseError, SinkError as TxnSinkError, TxnError};
use cdcctl::sink::{DeadLetterFile, EventSink, JsonLinesSink};
use cdcctl::source::TablePattern;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Tables to capture: SCHEMA.TABLE, comma-separated or repeated; `%` and `_`
    /// are wildcards. Default: every table LogMiner returns.
    #[arg(value_delimiter = ',')]
    pub tables: Vec<String>,
    /// Where events go: a file (appended, JSON lines) or `-` for stdout.
    #[arg(long, short, default_value = "-")]
    pub output: String,
    /// Checkpoint file; capture resumes from it when it exists.
    #[arg(long, default_value = "cdcctl-checkpoint.json")]
    pub checkpoint: PathBuf,
    /// Start after this SCN instead of now (only without an existing checkpoint).
    #[arg(long)]
    pub from_scn: Option<u64>,
    /// Stop once every change up to this SCN was written.
    #[arg(long)]
    pub until_scn: Option<u64>,
    /// Stop after writing this many events.
    #[arg(long)]
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
    /// Dead-letter file for `--on-parse-error warn`.
    #[arg(long, default_value = "cdcctl-dead-letter.jsonl")]
    pub dead_letter: PathBuf,
    /// Spill a transaction to disk once it buffers this many MiB.
    #[arg(long, default_value_t = 64)]
    pub spill_mb: u64,
    /// Directory for spill files (default: the system temp dir).
    #[arg(long)]
    pub spill_dir: Option<PathBuf>,
    /// Abandon transactions open longer than this (redo time), with a warning
    /// naming each one. Default: keep them however long they stay open.
    #[arg(long, value_parser = parse_duration)]
    pub abandon_after: Option<Duration>,
    /// Archive destination (V$ARCHIVE_DEST_STATUS.DEST_NAME) to read archives from.
    #[arg(long)]
    pub archive_dest: Option<String>,
    /// Only changes made in this PDB (SRC_CON_NAME), when mining from CDB$ROOT.
    #[arg(long)]
    pub pdb: Option<String>,
    /// `source.name` of the events (the logical server name / topic prefix).
    #[arg(long, default_value = "cdcctl")]
    pub server_name: String,
    /// Print a progress line on stderr this often.
    #[arg(long, value_parser = parse_duration, default_value = "10s")]
    pub status_every: Duration,
}

pub fn run(global: &GlobalArgs, args: &RunArgs) -> ExitCode {
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

fn run_inner(global: &GlobalArgs, args: &RunArgs) -> Result<ExitCode, Failure> {
    let tables = args
        .tables
        .iter()
        .filter(|t| !t.trim().is_empty())
        .map(|t| TablePattern::parse(t).map_err(Failure::usage))
        .collect::<Result<Vec<_>, _>>()?;
    let store = FileCheckpointStore::new(&args.checkpoint);
    let existing = store
        .load()
        .map_err(|e| Failure::usage(format!("checkpoint {}: {e}", args.checkpoint.display())))?;
    let start = match (existing, args.from_scn) {
        (Some(_), Some(_)) => {
            return Err(Failure::usage(format!(
            "--from-scn conflicts with the existing checkpoint {}: remove the file to start over, \
                 or drop --from-scn to resume",
            args.checkpoint.display()
        )))
        }
        (Some(cp), None) => {
            eprintln!(
                "cdcctl run: resuming from {} (restart SCN {}, commit SCN {})",
                args.checkpoint.display(),
                cp.restart_scn,
                cp.commit_scn
            );
            StartAt::Checkpoint(cp)
        }
        (None, Some(scn)) => StartAt::Scn(scn),
        (None, None) => StartAt::Now,
    };
    let opened =
        source::open_redo_source(&global.source, global.oracle_client_lib.clone(), &tables)
            .map_err(|e| Failure {
                code: e.exit_code,
                message: e.message,
            })?;
    let config = CaptureConfig {
        buffer: BufferConfig {
            server_name: args.server_name.clone(),
            db_name: opened.db_name.clone(),
            on_parse_error: if args.on_parse_error == "warn" {
                OnParseError::Warn
            } else {
                OnParseError::Fail
            },
            relaxed_quotes: args.relaxed_quotes,
            spill_txn_bytes: Some(args.spill_mb.max(1) << 20),
            spill_dir: args.spill_dir.clone(),
            abandon_after: args.abandon_after,
            ..BufferConfig::default()
        },
        planner: PlannerConfig {
            archive_dest: args.archive_dest.clone(),
            ..PlannerConfig::default()
        },
        tables,
        pdb: args.pdb.clone().or(opened.pdb_filter.clone()),
        start,
        until_scn: args.until_scn,
        key_columns: opened.key_columns.clone(),
        lob_columns: opened.lob_columns.clone(),
        ..CaptureConfig::default()
    };
    let mut capture = Capture::new(opened.source, config).map_err(|e| capture_failure(&e))?;
    let mut sink: Box<dyn EventSink> = if args.output == "-" {
        Box::new(JsonLinesSink::stdout())
    } else {
        Box::new(
            JsonLinesSink::file(&PathBuf::from(&args.output)).map_err(|e| Failure {
                code: exit::USAGE,
                message: e.to_string(),
            })?,
        )
    };
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = Arc::clone(&stop);
        // Without a handler (e.g. one already installed) Ctrl-C kills the
        // process; the checkpoint on disk is still consistent.
        let _ = ctrlc::set_handler(move || stop.store(true, Ordering::Relaxed));
    }
    let mut dead_letters: Option<DeadLetterFile> = None;
    let mut written: u64 = 0;
    let mut last_status = Instant::now();
    let limit = args.count.unwrap_or(u64::MAX);
    let mut outcome: Result<(), Failure> = Ok(());
    while !stop.load(Ordering::Relaxed) && written < limit {
        let mut sink_error = None;
        let progress = capture.poll(&mut |e: CapturedEvent| -> Result<(), TxnSinkError> {
            if written >= limit {
                return Err("event limit reached".into());
            }
            sink.write(&e).map_err(|err| {
                let msg = err.to_string();
                sink_error = Some(err);
                TxnSinkError::from(msg)
            })?;
            written += 1;
            Ok(())
        });
        // Events first, then the checkpoint that covers them.
        if let Err(e) = sink.commit() {
            outcome = Err(Failure {
                code: exit::USAGE,
                message: e.to_string(),
            });
            break;
        }
        if let Err(e) = store.save(&capture.checkpoint()) {
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
            eprintln!(
                "cdcctl run: mined SCN {} (lag {} SCNs), restart SCN {}, {} open transactions, {} events written",
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
            Ok(Progress::Idle) => std::thread::sleep(Duration::from_millis(500)),
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
            Ok(Progress::Advanced { .. }) => {}
            Err(CaptureError::Txn(TxnError::Sink(_))) if sink_error.is_none() => break,
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
    if sink.skipped_duplicates() > 0 {
        eprintln!(
            "cdcctl run: {} events were already in the output and were not written again",
            sink.skipped_duplicates()
        );
    }
    outcome.map(|()| exit::code(exit::OK))
}
