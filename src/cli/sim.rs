//! `cdcctl sim`: the built-in simulator's own commands — list the built-in
//! scenarios, print a scenario's ground truth, and print the
//! V$LOGMNR_CONTENTS rows a LogMiner session over an SCN range returns.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use anyhow::Context;

use cdcctl::engine::contents_csv::ContentsWriter;
use cdcctl::engine::row::LogMinerRow;
use cdcctl::source::sim::{Sim, BUILTINS};
use cdcctl::source::{ContentsQuery, MiningOptions, RedoSource, SessionRequest, SourceError};

use super::exit;

#[derive(Debug, clap::Subcommand)]
pub enum SimCommand {
    /// List the built-in scenarios with what each demonstrates.
    Scenarios,
    /// Print the ground truth: every committed change as a Debezium
    /// envelope, one JSON line each, in commit order.
    Truth(TruthArgs),
    /// Print the V$LOGMNR_CONTENTS rows a session over (FROM, UNTIL] returns,
    /// as CSV (the format `redo parse --csv` and `redo replay --csv` read).
    Contents(ContentsArgs),
}

#[derive(Debug, clap::Args)]
pub struct ScenarioArg {
    /// Built-in name or scenario file; defaults to the global --source when
    /// it is `sim` or `sim:SCENARIO`.
    #[arg(long, value_name = "NAME|PATH")]
    pub scenario: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct TruthArgs {
    #[command(flatten)]
    pub scenario: ScenarioArg,
    /// Only transactions that started after this SCN (default: all).
    #[arg(long, value_name = "SCN")]
    pub from_scn: Option<u64>,
    /// Run the workload up to this SCN and print what committed by then.
    #[arg(
        long,
        value_name = "SCN",
        required_unless_present = "count",
        conflicts_with = "count"
    )]
    pub until_scn: Option<u64>,
    /// Print this many changes.
    #[arg(long, value_name = "N")]
    pub count: Option<usize>,
    /// Include DDL events (schema-change records) in the stream.
    #[arg(long)]
    pub ddl: bool,
}

#[derive(Debug, clap::Args)]
pub struct ContentsArgs {
    #[command(flatten)]
    pub scenario: ScenarioArg,
    /// Rows with SCN above this.
    #[arg(long, value_name = "SCN")]
    pub from_scn: u64,
    /// Rows with SCN at or below this.
    #[arg(long, value_name = "SCN")]
    pub until_scn: u64,
    /// Only these owners' DML (repeatable); transaction control and DDL rows always pass.
    #[arg(long, value_name = "OWNER")]
    pub owner: Vec<String>,
    /// Only rows of this PDB (SRC_CON_NAME).
    #[arg(long, value_name = "PDB")]
    pub pdb: Option<String>,
    /// START_LOGMNR with NO_ROWID_IN_STMT.
    #[arg(long)]
    pub no_rowid: bool,
    /// START_LOGMNR with COMMITTED_DATA_ONLY.
    #[arg(long)]
    pub committed_only: bool,
}

/// The scenario a sim command runs: `--scenario`, else the global `--source`.
fn scenario_spec(arg: &ScenarioArg, source: &str) -> Result<String, String> {
    if let Some(s) = &arg.scenario {
        return Ok(s.clone());
    }
    match source.strip_prefix("sim") {
        Some("") => Ok("demo".into()),
        Some(rest) if rest.starts_with(':') => Ok(rest[1..].to_string()),
        _ => Err(format!(
            "--source {source} is not a simulator: pass --scenario NAME (see `cdcctl sim scenarios`)"
        )),
    }
}

fn load(arg: &ScenarioArg, source: &str) -> Result<Sim, ExitCode> {
    let spec = scenario_spec(arg, source).map_err(|m| {
        eprintln!("error: {m}");
        exit::code(exit::USAGE)
    })?;
    Sim::from_spec(&spec).map_err(|e| {
        eprintln!("error: {e}");
        exit::code(exit::USAGE)
    })
}

pub fn run(cmd: &SimCommand, source: &str) -> ExitCode {
    match cmd {
        SimCommand::Scenarios => scenarios(),
        SimCommand::Truth(args) => truth(args, source),
        SimCommand::Contents(args) => contents(args, source),
    }
}

fn finish(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => exit::code(exit::OK),
        Err(e) => {
            let broken_pipe = e.chain().any(|c| {
                c.downcast_ref::<io::Error>()
                    .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
            });
            if broken_pipe {
                // The reader (head, less) went away: not an error of ours.
                return exit::code(exit::OK);
            }
            eprintln!("error: {e:#}");
            exit::code(exit::UNTRUSTED_DATA)
        }
    }
}

fn scenarios() -> ExitCode {
    let width = BUILTINS.iter().map(|b| b.name.len()).max().unwrap_or(0);
    let mut out = io::stdout().lock();
    let mut r = Ok(());
    for b in BUILTINS {
        r = r.and_then(|()| writeln!(out, "{:width$}  {}", b.name, b.description));
    }
    finish(r.map_err(anyhow::Error::from))
}

fn truth(args: &TruthArgs, source: &str) -> ExitCode {
    let mut sim = match load(&args.scenario, source) {
        Ok(s) => s,
        Err(code) => return code,
    };
    sim.set_truth_limit(None);
    let from = args.from_scn.unwrap_or(0);
    let until = match (args.until_scn, args.count) {
        (Some(scn), _) => {
            sim.advance_to_scn(scn.saturating_add(1));
            scn
        }
        (None, Some(count)) => {
            // Run until enough changes have committed after `from`.
            loop {
                let n = sim
                    .truth_between(from, u64::MAX)
                    .filter(|e| {
                        args.ddl || matches!(e, cdcctl::engine::event::CapturedEvent::Change(_))
                    })
                    .count();
                if n >= count {
                    break;
                }
                sim.advance_ms(10_000);
            }
            u64::MAX
        }
        (None, None) => {
            eprintln!("error: give --until-scn SCN or --count N");
            return exit::code(exit::USAGE);
        }
    };
    let limit = args.count.unwrap_or(usize::MAX);
    let mut out = BufWriter::new(io::stdout().lock());
    let result = (|| -> anyhow::Result<()> {
        for e in sim
            .truth_between(from, until)
            .filter(|e| args.ddl || matches!(e, cdcctl::engine::event::CapturedEvent::Change(_)))
            .take(limit)
        {
            writeln!(out, "{}", e.to_json_line())?;
        }
        out.flush()?;
        Ok(())
    })();
    finish(result)
}

/// Runs one LogMiner session over (from, until] and returns its rows.
pub fn session_rows(sim: &mut Sim, args: &ContentsArgs) -> Result<Vec<LogMinerRow>, SourceError> {
    sim.advance_to_scn(args.until_scn.saturating_add(1));
    let files = sim.plan_logs(args.from_scn);
    sim.start_session(&SessionRequest {
        log_files: files,
        start_scn: args.from_scn,
        end_scn: args.until_scn,
        options: MiningOptions {
            dict_from_online_catalog: true,
            no_rowid_in_stmt: args.no_rowid,
            committed_data_only: args.committed_only,
            continuous_mine: false,
        },
    })?;
    sim.query_contents(&ContentsQuery {
        from_scn: args.from_scn,
        to_scn: args.until_scn,
        owners: args.owner.iter().map(|o| o.to_ascii_uppercase()).collect(),
        pdb: args.pdb.clone(),
    })?;
    let mut rows = Vec::new();
    while sim.fetch(10_000, &mut rows)? > 0 {}
    sim.end_session()?;
    Ok(rows)
}

fn contents(args: &ContentsArgs, source: &str) -> ExitCode {
    if args.until_scn <= args.from_scn {
        eprintln!(
            "error: --until-scn {} must be above --from-scn {}",
            args.until_scn, args.from_scn
        );
        return exit::code(exit::USAGE);
    }
    let mut sim = match load(&args.scenario, source) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let rows = match session_rows(&mut sim, args) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            if let Some(a) = e.advice() {
                eprintln!("hint: {a}");
            }
            return exit::code(exit::UNTRUSTED_DATA);
        }
    };
    let result = (|| -> anyhow::Result<()> {
        let mut w =
            ContentsWriter::new(BufWriter::new(io::stdout().lock())).context("writing CSV")?;
        for r in &rows {
            w.write_row(r).context("writing CSV")?;
        }
        w.finish().context("writing CSV")?.flush()?;
        Ok(())
    })();
    finish(result)
}
