//! Command-line interface: clap definitions and dispatch. Each command lives
//! in its own module and returns the process exit code.

pub mod exit;
pub mod tail;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Follow changes live: a full screen on a terminal, JSON lines otherwise.
    Tail(tail::TailArgs),
}

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
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
        Command::Tail(args) => tail::run(&cli.global, &args),
    }
}
