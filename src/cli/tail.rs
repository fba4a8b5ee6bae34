//! `cdcctl tail`: follow changes to some tables live, on a full screen or as
//! JSON lines. It drives the same capture engine as `run` from now (or
//! `--from-scn`, `--since`) and never reads or writes the daemon's checkpoint.

use crate::cli::log;
use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::mpsc::Receiver;
use std::time::Duration;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::cli::{exit, source};
use cdcctl::connect::tables::{parse_tables, TableList};
use cdcctl::daemon::fetch::Prefetch;
use cdcctl::daemon::follow::{self, RunOptions};
use cdcctl::engine::capture::{Capture, CaptureConfig, StartAt};
use cdcctl::engine::metrics::EngineMessage;
use cdcctl::engine::row::Scn;
use cdcctl::engine::txn::BufferConfig;
use cdcctl::source::{RedoSource, SourceError};
use cdcctl::tui::feed::{Script, SyntheticFeed};
use cdcctl::tui::plain::{run_plain, PlainEnd, PlainOptions};
use cdcctl::tui::{term, HeaderInfo, Thresholds, ViewConfig};

use super::GlobalArgs;
use crate::cli::duration::parse_duration;

const AFTER_HELP: &str = "\
Examples:
  cdcctl tail ORDERS                          full screen from now (APP.ORDERS if only APP has it)
  cdcctl tail 'APP.ORDER%' --since 10m        from ten minutes ago
  cdcctl tail APP.ORDERS --count 100 | jq .   JSON lines, the `run` envelope

Keys: q quit, Esc close pane or filter, t open transactions, p pause, / filter, arrows j k PgUp PgDn g G scroll, Enter detail, ? help.
Exit: 0 done or quit; 2 usage; 3 source unreachable; 4 capture stopped on data it could not trust.";

/// Follow changes live: a full screen on a terminal, JSON lines otherwise.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct TailArgs {
    /// Tables to follow: a comma list of [SCHEMA.]TABLE; a bare TABLE is
    /// looked up in every schema you can see; % matches any run of
    /// characters, _ one character.
    #[arg(value_name = "TABLES", value_parser = parse_tables)]
    pub tables: TableList,

    /// Start mining at this SCN instead of now.
    #[arg(long, value_name = "SCN", conflicts_with = "since")]
    pub from_scn: Option<Scn>,

    /// Start this long ago (30s, 10m, 1h).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub since: Option<Duration>,

    /// The PDB to follow when connected to CDB$ROOT: its tables are read
    /// inside it and only its changes are shown. Upper case unless written
    /// in double quotes; checked against V$PDBS.
    #[arg(long, value_name = "PDB")]
    pub pdb: Option<String>,

    /// JSON lines on stdout (the `run` envelope) even on a terminal.
    #[arg(long)]
    pub plain: bool,

    /// Stop after N events (exit 0).
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,

    /// Stop once every change committed at or below this SCN is out (exit 0).
    #[arg(long, value_name = "SCN")]
    pub until_scn: Option<Scn>,

    /// How often plain mode writes a lag line on stderr (0 turns it off).
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = parse_duration)]
    pub lag_every: Duration,

    /// A `cdcctl run` checkpoint to follow, read-only: while its run takes
    /// the initial snapshot, the screen (or plain mode's stderr) shows how
    /// far it got, table by table.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<std::path::PathBuf>,

    /// How often the open transactions (V$TRANSACTION joined to V$SESSION)
    /// and the archived logs ahead are read again (0 reads them once).
    #[arg(long, value_name = "DURATION", default_value = "15s", value_parser = parse_duration)]
    pub txn_refresh: Duration,

    /// How many recent changes the screen keeps for scrolling.
    #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub ring: u64,
    /// LOB and XMLType values: reassembled from their rows (`capture`) or
    /// `__debezium_unavailable_value` with a finding (`placeholder`).
    #[arg(long, value_enum, default_value_t = crate::cli::redo_replay::LobArg::Placeholder)]
    pub lob: crate::cli::redo_replay::LobArg,

    /// Time lag at which the gauge turns yellow.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_duration)]
    pub lag_warn: Duration,

    /// Time lag at which the gauge turns red.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = parse_duration)]
    pub lag_crit: Duration,

    /// SCN lag at which the gauge turns yellow.
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    pub scn_lag_warn: u64,

    /// SCN lag at which the gauge turns red.
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    pub scn_lag_crit: u64,

    /// An open transaction this old (database clock) raises an alert: it
    /// holds the restart SCN, and the archived logs from its start, back.
    #[arg(long, value_name = "DURATION", default_value = "1h", value_parser = parse_duration)]
    pub alert_txn_age: Duration,

    /// An open transaction with this many buffered changes raises an alert,
    /// with what it holds in memory or has spilled to disk.
    #[arg(long, value_name = "N", default_value_t = 50_000)]
    pub alert_txn_changes: u64,

    /// Draw a built-in synthetic feed (steady, lag or faults) instead of
    /// reading a source, to check a terminal; it shows no real data.
    #[arg(long, hide = true, value_name = "SCRIPT", num_args = 0..=1, default_missing_value = "steady")]
    pub synthetic_feed: Option<String>,
}

impl TailArgs {
    fn validate(&self) -> Result<(), String> {
        if self.lag_warn >= self.lag_crit {
            return Err(format!(
                "--lag-warn ({}s) must be below --lag-crit ({}s)",
                self.lag_warn.as_secs(),
                self.lag_crit.as_secs()
            ));
        }
        if self.scn_lag_warn >= self.scn_lag_crit {
            return Err("--scn-lag-warn must be below --scn-lag-crit".into());
        }
        if let (Some(from), Some(until)) = (self.from_scn, self.until_scn) {
            if until < from {
                return Err(format!(
                    "--until-scn {until} is below --from-scn {from}; nothing would be captured"
                ));
            }
        }
        if let Some(cp) = &self.checkpoint {
            if !cp.is_file() {
                return Err(format!(
                    "--checkpoint {}: no such file (the checkpoint `cdcctl run` writes, \
                     cdcctl-checkpoint.json unless it was given --checkpoint)",
                    cp.display()
                ));
            }
        }
        Ok(())
    }

    fn view_config(&self) -> ViewConfig {
        ViewConfig {
            thresholds: Thresholds {
                time_warn_s: self.lag_warn.as_secs(),
                time_crit_s: self.lag_crit.as_secs().max(1),
                scn_warn: self.scn_lag_warn,
                scn_crit: self.scn_lag_crit.max(1),
            },
            ring_capacity: usize::try_from(self.ring).unwrap_or(usize::MAX),
            big_txn_events: self.alert_txn_changes.max(1),
            old_txn_s: i64::try_from(self.alert_txn_age.as_secs())
                .unwrap_or(i64::MAX)
                .max(1),
            ..ViewConfig::default()
        }
    }
}

/// Starts the capture engine on its own thread for `args` and returns what
/// the header shows and the engine's message channel.
///
/// What the screen and plain mode expect of it:
/// - `HeaderInfo`: the source as the operator wrote it (without a password),
///   the banner version, the container mined from, the user, the table list
///   as resolved (`APP.ORDERS` for a bare `ORDERS`), and the key columns of each matched table (the
///   list's KEY column; the first column otherwise);
/// - the channel is a bounded `sync_channel`; the engine mines from
///   `args.from_scn`, or `args.since` ago, or the current SCN, never reads or
///   writes the daemon's checkpoint, sends `Status` at least once a second,
///   stops by itself at `args.until_scn` / `args.count` (state `Finished`),
///   and ends with `Stopped`; a send error means the screen has gone.
fn start_engine(
    global: &GlobalArgs,
    args: &TailArgs,
) -> Result<(HeaderInfo, Receiver<EngineMessage>), (String, u8)> {
    let request = cdcctl::connect::CaptureSource {
        spec: global.source.clone(),
        client_lib: global.oracle_client_lib.clone(),
        tables: args.tables.0.clone(),
        pdb: args.pdb.clone(),
        every_table: false,
        prompt: source::prompt_password,
    };
    let opened = request.open(None).map_err(|e| (e.message, e.exit_code))?;
    let mut redo = opened.source;
    // The database's open transactions, by the same reading the engine's
    // first start uses; an unreadable view is shown, not fatal.
    let (db_transactions, db_transactions_error) =
        match cdcctl::engine::inflight::session_transactions(redo.as_mut()) {
            Ok(open) => (open, None),
            Err(e) => (Vec::new(), Some(e.to_string())),
        };
    let db_transactions_at = redo.current_scn().ok().map(|c| c.time);
    let header = HeaderInfo {
        db_transactions,
        db_transactions_at,
        db_transactions_error,
        source: opened.description.clone(),
        version: opened.version.clone(),
        container: opened.container.clone(),
        user: opened.user.clone(),
        tables: opened.tables.label.clone(),
        simulator: opened.simulator.clone(),
        key_columns: opened
            .key_columns
            .iter()
            .map(|(name, key)| (name.to_string(), key.clone()))
            .collect(),
    };
    let start = match (args.from_scn, args.since) {
        (Some(scn), _) => {
            let now = redo.current_scn().map_err(|e| {
                let code = exit::for_source(&e);
                (exit::with_advice(&e, e.advice().as_deref()), code)
            })?;
            if scn > now.scn {
                return Err((
                    format!(
                        "--from-scn {scn} is above the database's current SCN {}: nothing \
                         could ever be mined from there (another database?)",
                        now.scn
                    ),
                    exit::USAGE,
                ));
            }
            // As with --since: reaching before the logs is a usage matter,
            // said at once rather than met as missing redo (or skipped).
            let source_err = |e: SourceError| {
                let code = exit::for_source(&e);
                (exit::with_advice(&e, e.advice().as_deref()), code)
            };
            let inv = redo.log_inventory().map_err(source_err)?;
            if let Some((first, time)) = oldest_log_start(&inv).filter(|(f, _)| scn + 1 < *f) {
                return Err((
                    format!(
                        "--from-scn {scn} is older than the oldest available log, which starts \
                         at SCN {first} ({time}, database time); use --from-scn {} or later",
                        first - 1
                    ),
                    exit::USAGE,
                ));
            }
            StartAt::Scn(scn)
        }
        (None, Some(ago)) => StartAt::Scn(scn_since(&mut redo, ago).map_err(|e| {
            let code = exit::for_source(&e);
            (exit::with_advice(&e, e.advice().as_deref()), code)
        })?),
        (None, None) => StartAt::Now,
    };
    let config = CaptureConfig {
        buffer: BufferConfig {
            db_name: opened.db_name.clone(),
            charsets: opened.charsets.clone(),
            lob: args.lob.into(),
            ..BufferConfig::default()
        },
        tables: opened.tables.patterns.clone(),
        pdb: opened.pdb_filter.clone(),
        start,
        until_scn: args.until_scn,
        key_columns: opened.key_columns.clone(),
        lob_columns: opened.lob_columns.clone(),
        columns: opened.columns.clone(),
        binary_columns: opened.binary_columns.clone(),
        ..CaptureConfig::default()
    };
    // The same fetch stage as `run`'s: rows are read ahead on their own
    // thread while the engine's thread parses.
    let redo = Prefetch::spawn(redo)
        .map_err(|e| (format!("cannot start the fetch thread: {e}"), exit::USAGE))?;
    let capture = Capture::new(redo, config).map_err(|e| {
        (
            exit::with_advice(&e, e.advice().as_deref()),
            exit::for_capture(&e),
        )
    })?;
    let (tx, rx) = std::sync::mpsc::sync_channel(64);
    // Said before the first event, on the screen as an alert: capture works
    // here, with losses (NOARCHIVELOG, supplemental logging off).
    for w in &opened.warnings {
        let _ = tx.send(EngineMessage::Warning {
            code: "capture_loses_changes",
            message: format!("{}; advice: {}", w.message, w.advice),
        });
    }
    let options = RunOptions {
        max_events: args.count,
        detail: true,
        db_transactions_every: (!args.txn_refresh.is_zero()).then_some(args.txn_refresh),
        ..RunOptions::default()
    };
    // The thread ends by itself when the screen or the pipe goes away.
    follow::spawn(capture, tx, Arc::new(AtomicBool::new(false)), options)
        .map_err(|e| (format!("cannot start the capture thread: {e}"), exit::USAGE))?;
    Ok((header, rx))
}

/// The first SCN and time of each log capture could read (archived and
/// available, or online).
fn log_starts(
    inv: &cdcctl::source::LogInventory,
) -> impl Iterator<Item = (Scn, chrono::NaiveDateTime)> + '_ {
    inv.archived
        .iter()
        .filter(|a| a.is_available())
        .filter_map(|a| Some((a.first_change, a.first_time?)))
        .chain(
            inv.online
                .iter()
                .filter(|o| o.status != "UNUSED")
                .filter_map(|o| Some((o.first_change, o.first_time?))),
        )
}

/// The oldest of [`log_starts`].
fn oldest_log_start(inv: &cdcctl::source::LogInventory) -> Option<(Scn, chrono::NaiveDateTime)> {
    log_starts(inv).min_by_key(|(scn, _)| *scn)
}

/// The SCN to start from to see `ago` of history: the start of the newest
/// log (archived or online) that began at or before that time, so the whole
/// period is mined, perhaps with a little more before it.
fn scn_since(redo: &mut Box<dyn RedoSource>, ago: Duration) -> Result<Scn, SourceError> {
    let ago_std = ago;
    let now = redo.current_scn()?;
    let ago = chrono::Duration::from_std(ago)
        .map_err(|_| SourceError::Invalid(format!("--since {}s is too far back", ago.as_secs())))?;
    let target = now
        .time
        .checked_sub_signed(ago)
        .ok_or_else(|| SourceError::Invalid("--since reaches before the year 1".into()))?;
    let inv = redo.log_inventory()?;
    let mut oldest: Option<chrono::NaiveDateTime> = None;
    let mut best: Option<Scn> = None;
    for (scn, time) in log_starts(&inv) {
        oldest = Some(oldest.map_or(time, |o| o.min(time)));
        if time <= target {
            best = Some(best.map_or(scn, |b: Scn| b.max(scn)));
        }
    }
    // Asking further back than the logs reach is a usage matter, not lost
    // redo: nothing needs restoring to tail from what is there.
    match (best, oldest) {
        (Some(scn), _) => Ok(scn.saturating_sub(1)),
        (None, Some(o)) => Err(SourceError::Invalid(format!(
            "--since {}: the oldest available log starts at {o} (database time), \
             after {target}; use a shorter --since, or --from-scn",
            cdcctl::tui::format::duration_s(ago_std.as_secs())
        ))),
        (None, None) => Err(SourceError::Invalid(
            "--since: the database lists no logs to start from".into(),
        )),
    }
}

fn synthetic(
    script: &str,
    args: &TailArgs,
) -> Result<(HeaderInfo, Receiver<EngineMessage>), String> {
    let script = match script {
        "steady" => Script::Steady,
        "lag" => Script::RisingLag,
        "faults" => Script::Faults,
        other => {
            return Err(format!(
                "unknown synthetic feed `{other}`; use steady, lag or faults"
            ))
        }
    };
    let mut header = cdcctl::tui::feed::demo_header();
    header.source = "synthetic feed (no database)".into();
    header.tables = args.tables.to_string();
    Ok((
        header,
        SyntheticFeed::new(script).spawn(Duration::from_secs(1), None),
    ))
}

pub fn run(global: &GlobalArgs, args: &TailArgs) -> ExitCode {
    if let Err(msg) = args.validate() {
        log::error("tail", &msg);
        return exit::code(exit::USAGE);
    }
    let started = match &args.synthetic_feed {
        Some(script) => synthetic(script, args).map_err(|msg| (msg, exit::USAGE)),
        None => start_engine(global, args),
    };
    let (header, mut rx) = match started {
        Ok(s) => s,
        Err((msg, code)) => {
            log::error("tail", &msg);
            return exit::code(code);
        }
    };
    if let Some(cp) = &args.checkpoint {
        rx = follow_checkpoint(rx, cp.clone());
    }
    if args.plain || !io::stdout().is_terminal() {
        run_plain_mode(&rx, args)
    } else {
        run_screen(header, rx, args)
    }
}

/// How often a followed checkpoint is read again.
const CHECKPOINT_POLL: Duration = Duration::from_secs(2);

/// The engine's messages with a `cdcctl run` checkpoint's snapshot progress
/// merged in, read every [`CHECKPOINT_POLL`].
fn follow_checkpoint(
    rx: Receiver<EngineMessage>,
    path: std::path::PathBuf,
) -> Receiver<EngineMessage> {
    let (tx, merged) = std::sync::mpsc::sync_channel(64);
    let poll = tx.clone();
    let engine_done = Arc::new(AtomicBool::new(false));
    let done = Arc::clone(&engine_done);
    std::thread::spawn(move || {
        for m in rx {
            if tx.send(m).is_err() {
                break;
            }
        }
        done.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    std::thread::spawn(move || {
        while !engine_done.load(std::sync::atomic::Ordering::Relaxed) {
            let progress = super::status::unfinished_snapshot(&path).map(Box::new);
            if poll.send(EngineMessage::Snapshot(progress)).is_err() {
                break;
            }
            std::thread::sleep(CHECKPOINT_POLL);
        }
    });
    merged
}

fn run_plain_mode(rx: &Receiver<EngineMessage>, args: &TailArgs) -> ExitCode {
    let stop = match super::signals::stop_on_signals() {
        Ok(flag) => flag,
        Err(e) => {
            log::error("tail", format!("cannot handle signals: {e}"));
            return exit::code(exit::USAGE);
        }
    };
    let opts = PlainOptions {
        count: args.count,
        until_scn: args.until_scn,
        lag_every: args.lag_every,
        stop: Some(stop),
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    // Not locked for the whole run: the engine thread's log lines (-vv)
    // go to stderr too, and would wait for that lock forever.
    let mut err = io::stderr();
    match run_plain(rx, &mut out, &mut err, &opts) {
        Ok(outcome) => match (&outcome.end, &outcome.fatal) {
            (PlainEnd::EngineStopped, Some(f)) => exit::code(exit::for_ora(f.ora_code)),
            _ => exit::code(exit::OK),
        },
        Err(e) => {
            let _ = writeln!(err, "cdcctl tail: cannot write to stdout: {e}");
            exit::code(exit::USAGE)
        }
    }
}

fn run_screen(header: HeaderInfo, rx: Receiver<EngineMessage>, args: &TailArgs) -> ExitCode {
    match term::run(header, rx, args.view_config()) {
        Ok(app) => match app.fatal_error() {
            // Repeat it on the main screen: the alternate screen is gone.
            Some(alert) => {
                log::notice(
                    "tail",
                    log::Level::Error,
                    &format!("capture stopped: {}", alert.text()),
                    alert.advice.as_deref(),
                    &[],
                );
                let ora = alert.code.strip_prefix("ORA-").and_then(|c| c.parse().ok());
                exit::code(exit::for_ora(ora))
            }
            None => exit::code(exit::OK),
        },
        Err(e) => {
            log::error("tail", &e);
            exit::code(exit::USAGE)
        }
    }
}
