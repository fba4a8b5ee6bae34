//! Command-line interface: clap definitions and dispatch. Each command lives
//! in its own module and returns the process exit code.

pub mod bounded;
pub mod collect;
pub mod config;
pub mod duration;
pub mod exit;
pub mod forms;
pub mod kafka;
pub mod log;
pub mod partitions;
pub mod preflight;
pub mod redo_dialect;
pub mod redo_dictionary;
pub mod redo_parse;
pub mod redo_replay;
pub mod run;
pub mod signals;
pub mod sim;
pub mod source;
pub mod status;
pub mod tail;

use cdcctl::connect::suggest;
use std::process::ExitCode;

use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};

/// `0.1.0 (1a2b3c4d5e6f, built 2026-11-30)`: the commit and date come from
/// build.rs.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("CDCCTL_COMMIT"),
    ", built ",
    env!("CDCCTL_BUILD_DATE"),
    ")"
);

/// Log-based CDC from Oracle, DM8 and YashanDB: preflight, partitions, live tail, capture.
#[derive(Debug, Parser)]
#[command(name = "cdcctl", version = VERSION, about, long_about = None, after_help = exit::TABLE)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command understands.
#[derive(Debug, clap::Args)]
pub struct GlobalArgs {
    /// Where to read from: `sim` (built-in demo), `sim:NAME` (built-in scenario),
    /// `sim:PATH.toml` (scenario file), `oracle://USER@HOST:PORT/SERVICE`,
    /// `dm://USER@HOST:PORT` (DM8) or `yashandb://USER@HOST:PORT` (preflight
    /// only, a build with the yashandb-odbc feature); passwords come from
    /// CDCCTL_PASSWORD or a prompt. Default `sim`, except for `run`, which
    /// captures only a source named on purpose.
    #[arg(
        long,
        global = true,
        default_value = "sim",
        hide_default_value = true,
        env = "CDCCTL_SOURCE"
    )]
    pub source: String,

    /// Whether `--source` came from the flag or the environment rather than
    /// the default: `run` refuses to capture the simulator by accident.
    #[arg(skip)]
    pub source_explicit: bool,

    /// Directory of Oracle Instant Client, when it is not on LD_LIBRARY_PATH.
    #[arg(
        long,
        global = true,
        env = "CDCCTL_ORACLE_CLIENT_LIB",
        value_name = "DIR"
    )]
    pub oracle_client_lib: Option<std::path::PathBuf>,

    /// More log lines on stderr (-v info, -vv debug, -vvv trace);
    /// CDCCTL_LOG or RUST_LOG (e.g. `cdcctl=debug`) filter them finely.
    #[arg(short, long, global = true, action = clap::ArgAction::Count, conflicts_with = "quiet")]
    pub verbose: u8,

    /// Less on stderr: errors only; `preflight` shows only warnings and failures.
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// How stderr lines are written: `text`, or `json` (one object per line:
    /// timestamp, level, command, message) for a log collector.
    #[arg(
        long,
        global = true,
        value_enum,
        default_value_t = log::LogFormat::Text,
        env = "CDCCTL_LOG_FORMAT",
        value_name = "FORMAT"
    )]
    pub log_format: log::LogFormat,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Go-live checks against the source (and a connector config).
    Preflight(preflight::PreflightArgs),
    /// A table's partitions and the risks they pose to capture.
    Partitions(partitions::PartitionsArgs),
    /// Print the offline evidence script (SQL*Plus, disql or yasql), or the evidence of --source.
    Collect(collect::CollectArgs),
    /// Follow changes live: a full screen on a terminal, JSON lines otherwise.
    Tail(tail::TailArgs),
    /// Capture changes to a sink (JSON lines) with a checkpoint: the daemon.
    Run(Box<run::RunArgs>),
    /// State of a `run`: lag, SCNs, rates, open transactions; exit 0 healthy,
    /// 1 lag above --warn/--crit, 3 not running or unreachable.
    Status(status::StatusArgs),
    /// Work offline with SQL_REDO text and V$LOGMNR_CONTENTS exports.
    #[command(subcommand)]
    Redo(RedoCommand),
    /// The built-in Oracle simulator: scenarios, ground truth, LogMiner rows.
    #[command(subcommand)]
    Sim(sim::SimCommand),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print a man page (roff): `cdcctl man | man -l -` for cdcctl(1),
    /// `cdcctl man tail` for cdcctl-tail(1); `--out-dir DIR` writes every
    /// page (cdcctl.1, cdcctl-tail.1, cdcctl-redo-replay.1, …) into DIR.
    Man {
        /// The command whose page to print, e.g. `tail` or `redo replay`.
        #[arg(value_name = "COMMAND")]
        command: Vec<String>,
        /// Write every page into this directory instead of printing one.
        #[arg(long, value_name = "DIR", conflicts_with = "command")]
        out_dir: Option<std::path::PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
pub enum RedoCommand {
    /// Parse SQL_REDO statements (one per line, or a V$LOGMNR_CONTENTS CSV
    /// with --csv) into JSON before/after images and findings.
    Parse(redo_parse::ParseArgs),
    /// Replay a V$LOGMNR_CONTENTS CSV through the transaction buffer:
    /// committed changes in commit order, then a summary on stderr.
    Replay(redo_replay::ReplayArgs),
}

/// Whether `--source` was given (flag or environment) anywhere on the line.
fn source_given(m: &ArgMatches) -> bool {
    let here = matches!(
        m.value_source("source"),
        Some(ValueSource::CommandLine | ValueSource::EnvVariable)
    );
    here || m.subcommand().is_some_and(|(_, sub)| source_given(sub))
}

/// Where `run` stands on the command line: the first `run` that is not the
/// value of a global option.
fn run_position(args: &[std::ffi::OsString]) -> Option<usize> {
    let mut skip = false;
    for (i, a) in args.iter().enumerate().skip(1) {
        if skip {
            skip = false;
            continue;
        }
        match a.to_str() {
            Some("--source" | "--oracle-client-lib") => skip = true,
            Some("run") => return Some(i),
            _ => {}
        }
    }
    None
}

/// The command line with `run --config FILE`'s keys added after `run`
/// (flags given on the line win), or `None` without a config file.
fn with_config(
    args: &[std::ffi::OsString],
    matches: &ArgMatches,
) -> Result<Option<Vec<std::ffi::OsString>>, clap::Error> {
    let Some(("run", sub)) = matches.subcommand() else {
        return Ok(None);
    };
    let Some(path) = sub.get_one::<std::path::PathBuf>("config") else {
        return Ok(None);
    };
    // Io marks a message already worded in full: `usage_message` prints it
    // as `cdcctl run: ...`, like the rest of run's messages.
    let fail = |m: String| clap::Error::raw(clap::error::ErrorKind::Io, format!("{m}\n"));
    let text = cdcctl::limits::read_text(path, cdcctl::limits::CONFIG_BYTES)
        .map_err(|e| fail(format!("config {}: {e}", path.display())))?;
    let top = Cli::command();
    let run = top
        .find_subcommand("run")
        .cloned()
        .ok_or_else(|| fail("no run command".into()))?;
    let extra = config::arguments(path, &text, &top, &run, sub, matches).map_err(fail)?;
    let at =
        run_position(args).ok_or_else(|| fail("`run` not found on the command line".into()))?;
    let mut out = args[..=at].to_vec();
    out.extend(extra);
    out.extend_from_slice(&args[at + 1..]);
    Ok(Some(out))
}

fn parse() -> Result<Cli, clap::Error> {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let mut matches = Cli::command().try_get_matches_from(&args)?;
    if let Some(full) = with_config(&args, &matches)? {
        matches = Cli::command().try_get_matches_from(&full)?;
    }
    let explicit = source_given(&matches);
    let mut cli = Cli::from_arg_matches_mut(&mut matches)?;
    cli.global.source_explicit = explicit;
    Ok(cli)
}

/// What a value of this form looks like, for errors that name the option.
fn expected_form(value_name: &str) -> Option<&'static str> {
    Some(match value_name {
        "SCN" => "an SCN: a whole number such as 10041082",
        "N" => "a whole number",
        "DURATION" => "a duration such as 30s, 10m, 1h or 1h30m",
        "MBPS" => "a positive number of MB/s such as 50",
        "DAYS" => "a whole number of days",
        "MIB" => "a whole number of MiB",
        "ROWS" => "a whole number of rows",
        "BYTES" => "a whole number of bytes",
        "inline|skip|FILE" => "inline, skip or the path of a file",
        "SOURCE" => {
            "sim, sim:SCENARIO, sim:PATH.toml, oracle://USER@HOST:PORT/SERVICE or facts:PATH"
        }
        "FILE" | "PATH" => "the path of a file",
        "DIR" => "the path of a directory",
        "ID" => "a check id such as supp-min (`cdcctl preflight --list` lists them)",
        "PDB" => "the name of a pluggable database",
        "ADDR" => "an address such as 127.0.0.1:9464",
        "URL" => "an address such as 127.0.0.1:9464 or http://host:9464",
        "SCHEMA.TABLE" | "[SCHEMA.]TABLE" => "a table name such as APP.ORDERS",
        "HOST:PORT,..." => "the brokers as HOST:PORT, comma-separated",
        "KEY=VALUE" => "a setting as KEY=VALUE",
        "CHECK.KEY=VALUE" => "a threshold as CHECK.KEY=VALUE, such as fra-usage.fail=90",
        "SCHEMA.TABLE=TOPIC" => "a route as SCHEMA.TABLE=TOPIC",
        "NAME|PATH" => "a scenario name or the path of a scenario file",
        "RELEASE" => "a release such as 19, 12.2 or 11.2",
        "NAME" | "OWNER" => "a name",
        _ => return None,
    })
}

/// The subcommand path clap's usage line names (`cdcctl tail`), for errors
/// that should say which command refused the argument.
fn command_of(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue};
    let usage = match e.get(ContextKind::Usage) {
        Some(ContextValue::StyledStr(s)) => s.to_string(),
        _ => String::new(),
    };
    let words: Vec<&str> = usage
        .trim_start()
        .trim_start_matches("Usage:")
        .split_whitespace()
        .take_while(|w| !w.starts_with(['[', '<', '-']))
        .collect();
    if words.is_empty() {
        command_from_args(std::env::args().skip(1))
    } else {
        words.join(" ")
    }
}

/// The subcommand path the arguments name (`cdcctl redo parse`), walking
/// clap's definitions: value errors carry no usage line to read it from.
fn command_from_args(args: impl Iterator<Item = String>) -> String {
    let mut cmd = Cli::command();
    cmd.build();
    let mut path = vec!["cdcctl".to_string()];
    let mut args = args.peekable();
    while let Some(a) = args.next() {
        if a == "--" {
            break;
        }
        if let Some(opt) = a.strip_prefix('-') {
            let (name, inline) = match opt.strip_prefix('-') {
                Some(long) => (long.split('=').next().unwrap_or(long), long.contains('=')),
                None => (opt.get(..1).unwrap_or(""), opt.len() > 1),
            };
            let takes_value = cmd
                .get_arguments()
                .find(|x| {
                    x.get_long() == Some(name)
                        || x.get_short().is_some_and(|c| name == c.to_string())
                })
                .is_some_and(|x| x.get_action().takes_values());
            if takes_value && !inline {
                args.next();
            }
            continue;
        }
        match cmd.find_subcommand(&a).cloned() {
            Some(sub) => {
                path.push(a);
                cmd = sub;
            }
            None => break,
        }
    }
    path.join(" ")
}

/// Clap's parse error as one sentence naming the option and the expected
/// form (or the close name when one was mistyped). `None` for help and
/// version output, which clap prints itself.
fn usage_message(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let text = |k| match e.get(k) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        Some(ContextValue::Strings(v)) if !v.is_empty() => Some(v.join(", ")),
        _ => None,
    };
    let cmd = command_of(e);
    let hint = format!("\n(see `{cmd} --help`)");
    let suggestion = |k| {
        text(k)
            .map(|s| format!("; did you mean {s}?"))
            .unwrap_or_default()
    };
    let sentence = match e.kind() {
        ErrorKind::Io => {
            let text = e.to_string();
            let text = text.trim_start_matches("error: ").trim_end();
            return Some(format!("cdcctl run: {}", log::without_errno(text)));
        }
        ErrorKind::ValueValidation | ErrorKind::InvalidValue => {
            return value_message(e, &cmd);
        }
        ErrorKind::UnknownArgument
            if text(ContextKind::InvalidArg)
                .is_some_and(|a| a.len() > 1 && a[1..].parse::<f64>().is_ok()) =>
        {
            let arg = text(ContextKind::InvalidArg).unwrap_or_default();
            format!("{cmd}: `{arg}`: negative numbers are not accepted (SCNs, counts and sizes start at 0)")
        }
        ErrorKind::UnknownArgument => {
            let arg = text(ContextKind::InvalidArg).unwrap_or_default();
            let what = if arg.starts_with('-') {
                "unknown option"
            } else {
                "unexpected argument"
            };
            let ours = arg
                .strip_prefix("--")
                .and_then(|typed| close_option(&cmd, typed));
            let hint = match ours {
                Some(o) => format!("; did you mean --{o}?"),
                None => suggestion(ContextKind::SuggestedArg),
            };
            format!("{cmd}: {what} `{arg}`{hint}")
        }
        ErrorKind::InvalidSubcommand => format!(
            "{cmd}: unknown command `{}`{}",
            text(ContextKind::InvalidSubcommand).unwrap_or_default(),
            suggestion(ContextKind::SuggestedSubcommand)
        ),
        ErrorKind::MissingRequiredArgument => format!(
            "{cmd}: missing {}",
            text(ContextKind::InvalidArg).unwrap_or_else(|| "an argument".into())
        ),
        ErrorKind::MissingSubcommand => {
            format!("{cmd}: a command is needed; `{cmd} --help` lists them")
        }
        ErrorKind::ArgumentConflict
            if text(ContextKind::InvalidArg) == text(ContextKind::PriorArg) =>
        {
            format!(
                "{cmd}: {} was given more than once",
                text(ContextKind::InvalidArg)
                    .unwrap_or_default()
                    .split_whitespace()
                    .next()
                    .unwrap_or_default()
            )
        }
        ErrorKind::ArgumentConflict => format!(
            "{cmd}: {} cannot be used with {}",
            text(ContextKind::InvalidArg).unwrap_or_default(),
            text(ContextKind::PriorArg).unwrap_or_else(|| "another option given".into())
        ),
        ErrorKind::TooManyValues => format!(
            "{cmd}: {} was given more than once or with too many values",
            text(ContextKind::InvalidArg).unwrap_or_default()
        ),
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => return None,
        _ => {
            let raw = e.to_string();
            let first = raw
                .lines()
                .next()
                .unwrap_or("")
                .trim_start_matches("error: ");
            format!("{cmd}: {first}")
        }
    };
    Some(format!("{sentence}{hint}"))
}

/// The long option of `cmd` (`cdcctl run`) an operator most likely meant
/// by `--typed`: one it begins (`--out` for `--output`), else the closest.
fn close_option(cmd: &str, typed: &str) -> Option<String> {
    let typed = typed.split('=').next().unwrap_or(typed);
    let mut c = Cli::command();
    for name in cmd.split_whitespace().skip(1) {
        c = c.find_subcommand(name)?.clone();
    }
    let longs: Vec<String> = c
        .get_arguments()
        .filter(|a| !a.is_hide_set())
        .filter_map(|a| a.get_long().map(str::to_string))
        .collect();
    let mut prefixed: Vec<&String> = longs
        .iter()
        .filter(|l| typed.len() >= 2 && l.starts_with(typed))
        .collect();
    prefixed.sort_by_key(|l| l.len());
    if let Some(first) = prefixed.first() {
        return Some((*first).clone());
    }
    suggest::close(typed, longs.iter().map(String::as_str))
        .first()
        .map(|s| s.to_string())
}

/// A bad or missing option value: the option, the value and the form it
/// should take.
fn value_message(e: &clap::Error, cmd: &str) -> Option<String> {
    use clap::error::{ContextKind, ContextValue};
    let text = |k| match e.get(k) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    let arg = text(ContextKind::InvalidArg)?;
    let value = text(ContextKind::InvalidValue).unwrap_or_default();
    let value_name = arg
        .split_once('<')
        .map(|(_, v)| v.trim_end_matches('>').trim_end_matches("..."))
        .unwrap_or("");
    let option = arg.split_whitespace().next().unwrap_or(&arg).to_string();
    let valid = match e.get(ContextKind::ValidValue) {
        Some(ContextValue::Strings(v)) if !v.is_empty() => Some(format!("one of {}", v.join(", "))),
        _ => None,
    };
    let expected = valid
        .or_else(|| expected_form(value_name).map(str::to_string))
        .unwrap_or_else(|| format!("a value ({value_name})"));
    let hint = format!("\n(see `{cmd} --help`)");
    if value.is_empty() {
        return Some(format!("{cmd}: {option} needs a value: {expected}{hint}"));
    }
    // A validator that names the value already says it all.
    let reason = std::error::Error::source(e).map(|r| r.to_string());
    if let Some(r) = reason
        .as_deref()
        .filter(|r| r.contains(&format!("`{value}`")))
    {
        return Some(format!("{cmd}: {option}: {r}{hint}"));
    }
    // Rust's integer parse errors say nothing the expected form does not,
    // except that a number is too large.
    let reason = match reason.as_deref() {
        Some(r) if r.contains("too large") => " (too large)".to_string(),
        Some("invalid digit found in string" | "cannot parse integer from empty string") => {
            String::new()
        }
        Some(r) if r.contains("too small") => " (too small)".to_string(),
        Some(r) => format!(" ({r})"),
        None => String::new(),
    };
    Some(format!(
        "{cmd}: {option}: `{value}` is not {expected}{reason}{hint}"
    ))
}

/// `cdcctl man`: one page on stdout, or every page into a directory.
/// `cmd` and every subcommand below it with cdcctl's version: each man
/// page's footer names the release (without adding a --version flag, which
/// `collect` has as an option of its own).
fn versioned(cmd: clap::Command) -> clap::Command {
    let subs: Vec<String> = cmd
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    let mut cmd = cmd;
    for name in subs {
        cmd = cmd.mut_subcommand(name, |sub| {
            versioned(sub).version(VERSION).disable_version_flag(true)
        });
    }
    cmd
}

fn man(command: &[String], out_dir: Option<&std::path::Path>) -> ExitCode {
    let top = versioned(Cli::command().name("cdcctl"));
    if let Some(dir) = out_dir {
        return match clap_mangen::generate_to(top, dir) {
            Ok(()) => exit::code(exit::OK),
            Err(e) => {
                log::error(
                    "man",
                    format!("cannot write the pages into {}: {e}", dir.display()),
                );
                exit::code(exit::USAGE)
            }
        };
    }
    // Built first so subcommands carry their full names (cdcctl-redo-replay).
    let mut cmd = top;
    cmd.build();
    let mut path = vec!["cdcctl".to_string()];
    for name in command {
        let Some(sub) = cmd.find_subcommand(name).cloned() else {
            let names: Vec<String> = cmd
                .get_subcommands()
                .map(|c| c.get_name().to_string())
                .collect();
            log::error(
                "man",
                format!(
                    "`{}` has no command `{name}`{}",
                    path.join(" "),
                    suggest::did_you_mean(name, names.iter().map(String::as_str))
                ),
            );
            return exit::code(exit::USAGE);
        };
        path.push(name.clone());
        cmd = sub;
    }
    let mut buf = Vec::new();
    match clap_mangen::Man::new(cmd).render(&mut buf) {
        Ok(()) => exit::write_stdout(&buf),
        Err(e) => {
            log::error("man", &e);
            exit::code(exit::USAGE)
        }
    }
}

pub fn main() -> ExitCode {
    if run_position(&std::env::args_os().collect::<Vec<_>>()).is_some() {
        signals::install_for_run();
    }
    let cli = match parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            };
            match usage_message(&e) {
                Some(m) => log::usage_error(&m),
                None => {
                    let _ = e.print();
                }
            }
            return exit::code(code);
        }
    };
    log::init(cli.global.verbose, cli.global.quiet, cli.global.log_format);
    match cli.command {
        Command::Completions { shell } => {
            let mut cmd = Cli::command();
            // Into memory first: clap_complete panics on a write error.
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut cmd, "cdcctl", &mut buf);
            exit::write_stdout(&buf)
        }
        Command::Man { command, out_dir } => man(&command, out_dir.as_deref()),
        Command::Preflight(args) => preflight::run(args, &cli.global),
        Command::Partitions(args) => partitions::run(args, &cli.global),
        Command::Collect(args) => collect::run(args, &cli.global),
        Command::Redo(RedoCommand::Parse(args)) => redo_parse::run(&args),
        Command::Run(args) => run::run(&cli.global, &args),
        Command::Redo(RedoCommand::Replay(args)) => redo_replay::run(&args),
        Command::Sim(cmd) => sim::run(&cmd, &cli.global.source),
        Command::Tail(args) => tail::run(&cli.global, &args),
        Command::Status(args) => status::run(&args),
    }
}
