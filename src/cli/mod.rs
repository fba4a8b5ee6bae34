//! Command-line interface: clap definitions and dispatch. Each command lives
//! in its own module and returns the process exit code.

pub mod collect;
pub mod duration;
pub mod exit;
pub mod partitions;
pub mod preflight;
pub mod redo_parse;
pub mod redo_replay;
pub mod run;
pub mod sim;
pub mod source;
pub mod suggest;
pub mod tables;
pub mod tail;

use std::process::ExitCode;

use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};

/// Log-based CDC from Oracle, DM8 and YashanDB: preflight, partitions, live tail, capture.
#[derive(Debug, Parser)]
#[command(name = "cdcctl", version, about, long_about = None)]
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
    /// `sim:PATH.toml` (scenario file) or `oracle://USER@HOST:PORT/SERVICE`
    /// (password from CDCCTL_PASSWORD or a prompt).
    #[arg(long, global = true, default_value = "sim", env = "CDCCTL_SOURCE")]
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
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Go-live checks against the source (and a connector config).
    Preflight(preflight::PreflightArgs),
    /// A table's partitions and the risks they pose to capture.
    Partitions(partitions::PartitionsArgs),
    /// Print the offline evidence script, or the evidence of --source.
    Collect(collect::CollectArgs),
    /// Follow changes live: a full screen on a terminal, JSON lines otherwise.
    Tail(tail::TailArgs),
    /// Capture changes to a sink (JSON lines) with a checkpoint: the daemon.
    Run(Box<run::RunArgs>),
    /// Work offline with SQL_REDO text and V$LOGMNR_CONTENTS exports.
    #[command(subcommand)]
    Redo(RedoCommand),
    /// The built-in Oracle simulator: scenarios, ground truth, LogMiner rows.
    #[command(subcommand)]
    Sim(sim::SimCommand),
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

fn parse() -> Result<Cli, clap::Error> {
    let mut matches = Cli::command().try_get_matches()?;
    let explicit = source_given(&matches);
    let mut cli = Cli::from_arg_matches_mut(&mut matches)?;
    cli.global.source_explicit = explicit;
    Ok(cli)
}

pub fn main() -> ExitCode {
    let cli = match parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            };
            let _ = e.print();
            return exit::code(code);
        }
    };
    match cli.command {
        Command::Preflight(args) => preflight::run(args, &cli.global),
        Command::Partitions(args) => partitions::run(args, &cli.global),
        Command::Collect(args) => collect::run(args, &cli.global),
        Command::Redo(RedoCommand::Parse(args)) => redo_parse::run(&args),
        Command::Run(args) => run::run(&cli.global, &args),
        Command::Redo(RedoCommand::Replay(args)) => redo_replay::run(&args),
        Command::Sim(cmd) => sim::run(&cmd, &cli.global.source),
        Command::Tail(args) => tail::run(&cli.global, &args),
    }
}
