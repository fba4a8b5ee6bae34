//! `cdcctl tail`: follow changes to some tables live, on a full screen or as
//! JSON lines. It drives the same capture engine as `run` from now (or
//! `--from-scn`, `--since`) and never reads or writes the daemon's checkpoint.

use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::mpsc::Receiver;
use std::time::Duration;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::cli::{exit, source};
use cdcctl::engine::capture::{self, Capture, CaptureConfig, RunOptions, StartAt};
use cdcctl::engine::metrics::EngineMessage;
use cdcctl::engine::row::Scn;
use cdcctl::engine::txn::BufferConfig;
use cdcctl::source::{split_qualified, SourceError};
use cdcctl::source::{RedoSource, TablePattern};
use cdcctl::tui::feed::{Script, SyntheticFeed};
use cdcctl::tui::plain::{run_plain, PlainEnd, PlainOptions};
use cdcctl::tui::{term, HeaderInfo, Thresholds, ViewConfig};

use super::GlobalArgs;
use crate::cli::duration::parse_duration;

/// One `[SCHEMA.]TABLE` of the table list; names are normalised as Oracle
/// does (upper case unless quoted); `%` and `_` are wildcards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSpec {
    /// `None`: the connecting user's schema.
    pub owner: Option<String>,
    pub table: String,
}

impl std::fmt::Display for TableSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.owner {
            Some(o) => write!(f, "{o}.{}", self.table),
            None => write!(f, "{}", self.table),
        }
    }
}

/// The `TABLES` argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableList(pub Vec<TableSpec>);

impl std::fmt::Display for TableList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<String> = self.0.iter().map(ToString::to_string).collect();
        write!(f, "{}", names.join(","))
    }
}

fn has_unquoted_dot(s: &str) -> bool {
    let mut quoted = false;
    s.chars().any(|c| {
        if c == '"' {
            quoted = !quoted;
        }
        c == '.' && !quoted
    })
}

/// Parses `APP.ORDERS,APP.ORDER_%,LINES`.
pub fn parse_tables(text: &str) -> Result<TableList, String> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim) {
        if part.is_empty() {
            return Err(format!(
                "`{text}` has an empty table name; write SCHEMA.TABLE[,SCHEMA.TABLE...]"
            ));
        }
        let spec = if has_unquoted_dot(part) {
            let (owner, table) = split_qualified(part).ok_or_else(|| {
                format!("`{part}` is not a valid [SCHEMA.]TABLE name (wildcards: % and _)")
            })?;
            TableSpec {
                owner: Some(owner),
                table,
            }
        } else {
            // Validate the bare name with the same rules as a qualified one.
            let (_, table) = split_qualified(&format!("X.{part}")).ok_or_else(|| {
                format!("`{part}` is not a valid [SCHEMA.]TABLE name (wildcards: % and _)")
            })?;
            TableSpec { owner: None, table }
        };
        out.push(spec);
    }
    Ok(TableList(out))
}

const AFTER_HELP: &str = "\
Examples:
  cdcctl tail APP.ORDERS                      full screen from now
  cdcctl tail 'APP.ORDER%' --since 10m        from ten minutes ago
  cdcctl tail APP.ORDERS --count 100 | jq .   JSON lines, the `run` envelope

Keys: q quit, p pause, / filter, arrows j k PgUp PgDn g G scroll, Enter detail, ? help.
Exit: 0 done or quit; 2 usage; 3 source unreachable; 4 capture stopped on data it could not trust.";

/// Follow changes live: a full screen on a terminal, JSON lines otherwise.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct TailArgs {
    /// Tables to follow: a comma list of [SCHEMA.]TABLE; % matches any run of
    /// characters, _ one character.
    #[arg(value_name = "TABLES", value_parser = parse_tables)]
    pub tables: TableList,

    /// Start mining at this SCN instead of now.
    #[arg(long, value_name = "SCN", conflicts_with = "since")]
    pub from_scn: Option<Scn>,

    /// Start this long ago (30s, 10m, 1h).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub since: Option<Duration>,

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

    /// How many recent changes the screen keeps for scrolling.
    #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub ring: u64,

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
///   as typed (`args.tables`), and the key columns of each matched table (the
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
    let mut patterns = Vec::new();
    let user_schema = |o: &source::OpenedSource| o.user.clone();
    // Unqualified names belong to the connecting user's schema, which is
    // only known after connecting: open first with the qualified ones.
    let qualified: Vec<TablePattern> = args
        .tables
        .0
        .iter()
        .filter_map(|t| {
            t.owner.as_ref().map(|o| TablePattern {
                owner: o.clone(),
                table: t.table.clone(),
            })
        })
        .collect();
    let opened =
        source::open_redo_source(&global.source, global.oracle_client_lib.clone(), &qualified)
            .map_err(|e| (e.message, e.exit_code))?;
    for t in &args.tables.0 {
        patterns.push(TablePattern {
            owner: t.owner.clone().unwrap_or_else(|| user_schema(&opened)),
            table: t.table.clone(),
        });
    }
    let header = HeaderInfo {
        source: opened.description.clone(),
        version: opened.version.clone(),
        container: opened.container.clone(),
        user: opened.user.clone(),
        tables: args.tables.to_string(),
        key_columns: opened
            .key_columns
            .iter()
            .map(|(name, key)| (name.to_string(), key.clone()))
            .collect(),
    };
    let mut redo = opened.source;
    let start = match (args.from_scn, args.since) {
        (Some(scn), _) => StartAt::Scn(scn),
        (None, Some(ago)) => StartAt::Scn(scn_since(&mut redo, ago).map_err(|e| {
            let code = exit::for_source(&e);
            (exit::with_advice(&e, e.advice()), code)
        })?),
        (None, None) => StartAt::Now,
    };
    let config = CaptureConfig {
        buffer: BufferConfig {
            db_name: opened.db_name.clone(),
            ..BufferConfig::default()
        },
        tables: patterns,
        pdb: opened.pdb_filter.clone(),
        start,
        until_scn: args.until_scn,
        key_columns: opened.key_columns.clone(),
        lob_columns: opened.lob_columns.clone(),
        ..CaptureConfig::default()
    };
    let capture = Capture::new(redo, config).map_err(|e| {
        (
            exit::with_advice(&e, e.advice().as_deref()),
            exit::for_capture(&e),
        )
    })?;
    let (tx, rx) = std::sync::mpsc::sync_channel(64);
    let options = RunOptions {
        idle_sleep: Duration::from_millis(250),
        max_events: args.count,
        ..RunOptions::default()
    };
    // The thread ends by itself when the screen or the pipe goes away.
    capture::spawn(capture, tx, Arc::new(AtomicBool::new(false)), options)
        .map_err(|e| (format!("cannot start the capture thread: {e}"), exit::USAGE))?;
    Ok((header, rx))
}

/// The SCN to start from to see `ago` of history: the start of the newest
/// log (archived or online) that began at or before that time, so the whole
/// period is mined, perhaps with a little more before it.
fn scn_since(redo: &mut Box<dyn RedoSource>, ago: Duration) -> Result<Scn, SourceError> {
    let now = redo.current_scn()?;
    let ago = chrono::Duration::from_std(ago)
        .map_err(|_| SourceError::Invalid(format!("--since {}s is too far back", ago.as_secs())))?;
    let target = now.time - ago;
    let inv = redo.log_inventory()?;
    let starts = inv
        .archived
        .iter()
        .filter(|a| a.is_available())
        .filter_map(|a| Some((a.first_time?, a.first_change)))
        .chain(
            inv.online
                .iter()
                .filter(|o| o.status != "UNUSED")
                .filter_map(|o| Some((o.first_time?, o.first_change))),
        );
    let mut oldest: Option<chrono::NaiveDateTime> = None;
    let mut best: Option<Scn> = None;
    for (time, scn) in starts {
        oldest = Some(oldest.map_or(time, |o| o.min(time)));
        if time <= target {
            best = Some(best.map_or(scn, |b: Scn| b.max(scn)));
        }
    }
    match best {
        Some(scn) => Ok(scn.saturating_sub(1)),
        None => Err(SourceError::MissingLog {
            thread: 1,
            scn: 0,
            detail: match oldest {
                Some(o) => format!(
                    "no available log reaches back to {target} (the oldest starts at {o}); \
                     use a shorter --since"
                ),
                None => "the database lists no logs".into(),
            },
        }),
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
        eprintln!("cdcctl tail: {msg}");
        return exit::code(exit::USAGE);
    }
    let started = match &args.synthetic_feed {
        Some(script) => synthetic(script, args).map_err(|msg| (msg, exit::USAGE)),
        None => start_engine(global, args),
    };
    let (header, rx) = match started {
        Ok(s) => s,
        Err((msg, code)) => {
            eprintln!("cdcctl tail: {msg}");
            return exit::code(code);
        }
    };
    if args.plain || !io::stdout().is_terminal() {
        run_plain_mode(&rx, args)
    } else {
        run_screen(header, rx, args)
    }
}

fn run_plain_mode(rx: &Receiver<EngineMessage>, args: &TailArgs) -> ExitCode {
    let opts = PlainOptions {
        count: args.count,
        until_scn: args.until_scn,
        lag_every: args.lag_every,
    };
    let stdout = io::stdout();
    let stderr = io::stderr();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut err = stderr.lock();
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
                eprintln!(
                    "cdcctl tail: capture stopped: {} {}",
                    alert.code, alert.message
                );
                if let Some(advice) = &alert.advice {
                    eprintln!("  advice: {advice}");
                }
                let ora = alert.code.strip_prefix("ORA-").and_then(|c| c.parse().ok());
                exit::code(exit::for_ora(ora))
            }
            None => exit::code(exit::OK),
        },
        Err(e) => {
            eprintln!("cdcctl tail: {e}");
            exit::code(exit::USAGE)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_accept_bare_qualified_and_wildcard_names() {
        let l = parse_tables("app.orders, APP.ORDER_%,lines,\"App\".\"Mixed\"").unwrap();
        assert_eq!(l.to_string(), "APP.ORDERS,APP.ORDER_%,LINES,App.Mixed");
        assert_eq!(l.0[2].owner, None);
    }

    #[test]
    fn tables_reject_empty_and_invalid_names() {
        assert!(parse_tables("APP.ORDERS,").is_err());
        assert!(parse_tables("A.B.C").is_err());
        assert!(parse_tables("APP.ORD ERS").is_err());
        assert!(parse_tables("x;drop").is_err());
    }
}
