//! `cdcctl tail`: follow changes to some tables live, on a full screen or as
//! JSON lines. It drives the same capture engine as `run` from now (or
//! `--from-scn`, `--since`) and never reads or writes the daemon's checkpoint.

use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::mpsc::Receiver;
use std::time::Duration;

use crate::cli::exit;
use cdcctl::engine::metrics::EngineMessage;
use cdcctl::engine::row::Scn;
use cdcctl::source::{split_qualified, SourceError};
use cdcctl::tui::feed::{Script, SyntheticFeed};
use cdcctl::tui::plain::{run_plain, PlainEnd, PlainOptions};
use cdcctl::tui::{term, HeaderInfo, Thresholds, ViewConfig};

use super::GlobalArgs;

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

/// Parses `30s`, `10m`, `1h30m`, `500ms`, `2d`; a bare number is seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let bad = || format!("`{text}` is not a duration; write e.g. 30s, 10m, 1h30m or 500ms");
    let s = text.trim();
    if s.is_empty() {
        return Err(bad());
    }
    if let Ok(n) = s.parse::<u64>() {
        return Ok(Duration::from_secs(n));
    }
    let mut total = Duration::ZERO;
    let mut rest = s;
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?;
        if digits == 0 {
            return Err(bad());
        }
        let n: u64 = rest[..digits].parse().map_err(|_| bad())?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let unit = match &rest[..unit_len] {
            "ms" => Duration::from_millis(n),
            "s" => Duration::from_secs(n),
            "m" => Duration::from_secs(n.saturating_mul(60)),
            "h" => Duration::from_secs(n.saturating_mul(3_600)),
            "d" => Duration::from_secs(n.saturating_mul(86_400)),
            _ => return Err(bad()),
        };
        total = total.saturating_add(unit);
        rest = &rest[unit_len..];
    }
    Ok(total)
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
) -> Result<(HeaderInfo, Receiver<EngineMessage>), SourceError> {
    let _ = (global, args);
    Err(SourceError::Unsupported(
        "capture engine not available in this build: `tail` cannot read a source yet".into(),
    ))
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

/// Exit code for a source error that stopped capture.
fn exit_for_source(ora_code: Option<u32>) -> u8 {
    match ora_code {
        Some(1017 | 28000 | 28001 | 12514 | 12505 | 12541 | 3113 | 3114 | 3135 | 1089) => {
            exit::UNREACHABLE
        }
        Some(942 | 1031 | 44609 | 65040) => exit::USAGE,
        _ => exit::UNTRUSTED_DATA,
    }
}

fn exit_for_start_error(e: &SourceError) -> u8 {
    match e {
        SourceError::Unreachable(_)
        | SourceError::Authentication(_)
        | SourceError::NoClientLibrary(_) => exit::UNREACHABLE,
        SourceError::MissingLog { .. } | SourceError::ArchiveGap { .. } => exit::UNTRUSTED_DATA,
        SourceError::Oracle { code, .. } => exit_for_source(Some(code.0)),
        SourceError::NotFound(_) | SourceError::Invalid(_) | SourceError::Unsupported(_) => {
            exit::USAGE
        }
    }
}

pub fn run(global: &GlobalArgs, args: &TailArgs) -> ExitCode {
    if let Err(msg) = args.validate() {
        eprintln!("cdcctl tail: {msg}");
        return exit::code(exit::USAGE);
    }
    let started = match &args.synthetic_feed {
        Some(script) => synthetic(script, args).map_err(|msg| (msg, exit::USAGE)),
        None => start_engine(global, args).map_err(|e| {
            let mut msg = format!("{e} (source {})", global.source);
            if let Some(advice) = e.advice() {
                msg.push_str(&format!("\n  advice: {advice}"));
            }
            (msg, exit_for_start_error(&e))
        }),
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
            (PlainEnd::EngineStopped, Some(f)) => exit::code(exit_for_source(f.ora_code)),
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
                exit::code(exit_for_source(ora))
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

    #[test]
    fn durations_parse_units_and_combinations() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5_400)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("7"), Ok(Duration::from_secs(7)));
        assert!(parse_duration("10 minutes").is_err());
        assert!(parse_duration("m").is_err());
        assert!(parse_duration("").is_err());
    }

    #[test]
    fn connection_errors_exit_3_and_missing_logs_exit_4() {
        assert_eq!(exit_for_source(Some(3113)), exit::UNREACHABLE);
        assert_eq!(exit_for_source(Some(1291)), exit::UNTRUSTED_DATA);
        assert_eq!(exit_for_source(Some(1031)), exit::USAGE);
        assert_eq!(exit_for_source(None), exit::UNTRUSTED_DATA);
    }
}
