//! `cdcctl sim`: the built-in simulator's own commands — list the built-in
//! scenarios, print a scenario's ground truth, print the V$LOGMNR_CONTENTS
//! rows a LogMiner session over an SCN range returns, and print the data
//! dictionary `redo replay --dictionary` reads for them.

use crate::cli::log;
use std::collections::HashMap;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use anyhow::Context;

use cdcctl::engine::contents_csv::{ContentsWriter, ORACLE_FORMS};
use cdcctl::engine::event::{
    is_binary_data_type, CapturedEvent, ColumnKind, ColumnKinds, Field, Op, ValueForms,
};
use cdcctl::engine::row::LogMinerRow;
use cdcctl::source::sim::{Sim, BUILTINS};
use cdcctl::source::{
    ContentsQuery, Dialect, MiningOptions, RedoSource, SessionRequest, SourceError, TableName,
};

use super::exit;

#[derive(Debug, clap::Subcommand)]
pub enum SimCommand {
    /// List the built-in scenarios with what each demonstrates.
    Scenarios,
    /// Print the ground truth: every committed change as a Debezium
    /// envelope, one JSON line each, in commit order.
    Truth(TruthArgs),
    /// Print the V$LOGMNR_CONTENTS rows a session over (FROM, UNTIL] returns,
    /// as CSV (the format `redo parse --csv` and `redo replay --csv` read);
    /// a DM8 scenario's as DM8's view shows them (`ROLL_BACK`, DM8's
    /// operation codes, `0x` XIDs).
    Contents(ContentsArgs),
    /// Print the scenario's character sets and column types as the JSON
    /// file `redo replay --dictionary` reads, so a replay of `sim contents`
    /// decodes character data LogMiner printed as HEXTORAW.
    Dictionary(DictionaryArgs),
}

#[derive(Debug, clap::Args)]
pub struct DictionaryArgs {
    #[command(flatten)]
    pub scenario: ScenarioArg,
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
        required_unless_present_any = ["count", "table_state"],
        conflicts_with = "count"
    )]
    pub until_scn: Option<u64>,
    /// Print the contents of every table as committed at --at-scn instead
    /// of the changes: one JSON line per row (`schema`, `table`, `key`,
    /// `row`), then one per row that partition DDL removed by then
    /// (`removed_at_scn`, `key`), which no row change reports.
    #[arg(long, requires = "at_scn", conflicts_with_all = ["until_scn", "count", "from_scn"])]
    pub table_state: bool,
    /// The SCN of --table-state.
    #[arg(long, value_name = "SCN", requires = "table_state")]
    pub at_scn: Option<u64>,
    /// Print this many changes.
    #[arg(long, value_name = "N")]
    pub count: Option<usize>,
    /// Include DDL events (schema-change records) in the stream.
    #[arg(long)]
    pub ddl: bool,
    #[command(flatten)]
    pub forms: crate::cli::forms::FormsArgs,
    /// Leave out the LOB columns of UPDATE and DELETE images, which their
    /// redo never carries, instead of marking them unavailable: the events
    /// then compare byte for byte with a replay that has no dictionary.
    #[arg(long)]
    pub omit_unlogged_lobs: bool,
    /// The truth for a capture run with this `--lob` mode: `capture` holds
    /// LOB and XMLType values whole (and a LOB written alone through
    /// `dbms_lob` as an UPDATE); `placeholder` gives them as unavailable.
    #[arg(long, value_enum, default_value_t = crate::cli::redo_replay::LobArg::Placeholder)]
    pub lob: crate::cli::redo_replay::LobArg,
}

/// Drops the unavailable LOB placeholders of UPDATE/DELETE images; inserts
/// keep theirs, since their redo names the LOB columns (`EMPTY_CLOB()`).
fn omit_unlogged_lobs(e: &CapturedEvent) -> CapturedEvent {
    match e {
        CapturedEvent::Change(c) if c.op != Op::Create => {
            let mut c = c.clone();
            for image in [&mut c.before, &mut c.after].into_iter().flatten() {
                image.retain(|_, f| !f.is_unavailable());
            }
            CapturedEvent::Change(c)
        }
        other => other.clone(),
    }
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
        Some(rest) if rest.starts_with(':') => {
            // `?clock=...` selects the clock of a live source; these commands
            // always run on their own virtual clock.
            let spec = &rest[1..];
            let spec = spec.rsplit_once("?clock=").map_or(spec, |(s, _)| s);
            Ok(if spec.is_empty() { "demo".into() } else { spec.to_string() })
        }
        Some(rest) if rest.starts_with('?') => Ok("demo".into()),
        _ => Err(format!(
            "--source {source} is not a simulator: pass --scenario NAME (see `cdcctl sim scenarios`)"
        )),
    }
}

fn load(arg: &ScenarioArg, source: &str) -> Result<Sim, ExitCode> {
    let spec = scenario_spec(arg, source).map_err(|m| {
        log::error("sim", &m);
        exit::code(exit::USAGE)
    })?;
    Sim::from_spec(&spec).map_err(|e| {
        log::error("sim", super::source::scenario_error(&e).to_string());
        exit::code(exit::USAGE)
    })
}

pub fn run(cmd: &SimCommand, source: &str) -> ExitCode {
    match cmd {
        SimCommand::Scenarios => scenarios(),
        SimCommand::Truth(args) => truth(args, source),
        SimCommand::Contents(args) => contents(args, source),
        SimCommand::Dictionary(args) => dictionary(args, source),
    }
}

/// `sim dictionary`: `{"charset", "nchar_charset", "tables": {"\"OWNER\".\"TABLE\"":
/// {"COLUMN": "DATA_TYPE"}}}`, names quoted so they keep their case.
fn dictionary(args: &DictionaryArgs, source: &str) -> ExitCode {
    let sim = match load(&args.scenario, source) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let model = sim.model();
    let tables: serde_json::Map<String, serde_json::Value> = model
        .tables
        .iter()
        .map(|t| {
            let columns: serde_json::Map<String, serde_json::Value> = t
                .columns
                .iter()
                .map(|c| (c.name.clone(), c.ty.data_type().into()))
                .collect();
            (
                format!("\"{}\".\"{}\"", t.name.owner, t.name.table),
                columns.into(),
            )
        })
        .collect();
    let instance = &model.scenario.instance;
    let doc = serde_json::json!({
        "charset": instance.characterset,
        "nchar_charset": instance.nchar_characterset,
        "tables": tables,
    });
    let mut out = io::stdout().lock();
    finish(writeln!(out, "{doc:#}").map_err(anyhow::Error::from))
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
            log::error("sim", format!("{e:#}"));
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

/// SCNs the simulator may be asked to run ahead of where it boots: enough
/// for hours of workload, bounded so a mistyped SCN neither spins for ever
/// nor fills memory.
const MAX_SCN_AHEAD: u64 = 2_000_000;

/// Refuses SCN arguments the simulator could reach only after running for
/// an unbounded time.
fn within_reach(sim: &Sim, scns: &[(&str, u64)]) -> Result<(), ExitCode> {
    let now = sim.model().scn;
    let limit = now.saturating_add(MAX_SCN_AHEAD);
    match scns.iter().find(|(_, scn)| *scn > limit) {
        Some((flag, scn)) => {
            log::error("sim", format!(
                "{flag} {scn} is more than {MAX_SCN_AHEAD} SCNs past the scenario's current SCN {now}; \
                 the simulator would run for hours to reach it"
            ));
            Err(exit::code(exit::USAGE))
        }
        None => Ok(()),
    }
}

fn truth(args: &TruthArgs, source: &str) -> ExitCode {
    let mut sim = match load(&args.scenario, source) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if let (true, Some(at)) = (args.table_state, args.at_scn) {
        return table_state(&mut sim, at, args.forms.forms());
    }
    if args.until_scn.is_none() && args.count.is_none() {
        log::error("sim", "give --until-scn SCN or --count N".to_string());
        return exit::code(exit::USAGE);
    }
    sim.set_lob_truth(args.lob == crate::cli::redo_replay::LobArg::Capture);
    let from = args.from_scn.unwrap_or(0);
    if let Err(code) = within_reach(
        &sim,
        &[
            ("--from-scn", from),
            ("--until-scn", args.until_scn.unwrap_or(0)),
        ],
    ) {
        return code;
    }
    // With --count alone, the simulator stops where --until-scn may reach.
    let until = args
        .until_scn
        .unwrap_or_else(|| sim.model().scn.saturating_add(MAX_SCN_AHEAD));
    let limit = args.count.unwrap_or(usize::MAX);
    // The scenario's column types, for --decimal-handling and --time-precision.
    let mut kinds = ColumnKinds::new();
    for t in &sim.model().tables {
        for c in &t.columns {
            let (owner, table) = (&t.name.owner, &t.name.table);
            kinds.add(owner, table, &c.name, &c.ty.data_type(), c.nullable);
        }
    }
    let forms = args.forms.forms();
    let mut out = BufWriter::new(io::stdout().lock());
    // Events are written as their transactions commit, so memory stays flat
    // however far the workload runs.
    let result = (|| -> anyhow::Result<bool> {
        let mut written = 0usize;
        let mut last_scn = sim.model().scn;
        let mut idle_ms: i64 = 0;
        loop {
            for (start, e) in sim.drain_truth_entries() {
                if e.source().commit_scn > until {
                    out.flush()?;
                    return Ok(true);
                }
                if start <= from || !(args.ddl || matches!(e, CapturedEvent::Change(_))) {
                    continue;
                }
                let line = if args.omit_unlogged_lobs {
                    omit_unlogged_lobs(&e).to_json_line_typed(forms, Some(&kinds))
                } else {
                    e.to_json_line_typed(forms, Some(&kinds))
                };
                writeln!(out, "{line}")?;
                written += 1;
                if written >= limit {
                    out.flush()?;
                    return Ok(true);
                }
            }
            if sim.model().scn > until {
                out.flush()?;
                return Ok(true);
            }
            sim.advance_ms(10_000);
            let scn = sim.model().scn;
            idle_ms = if scn == last_scn { idle_ms + 10_000 } else { 0 };
            last_scn = scn;
            if idle_ms > 86_400_000 {
                out.flush()?;
                return Ok(false);
            }
        }
    })();
    match result {
        Ok(false) => {
            log::error("sim", "the scenario generated no redo for a day of database time; check its [workload] and [[tables]]".to_string());
            exit::code(exit::USAGE)
        }
        other => finish(other.map(|_| ())),
    }
}

/// How one column's values are written: bytes or text, and its kind.
#[derive(Clone, Copy)]
struct ColumnForm {
    binary: bool,
    kind: Option<ColumnKind>,
}

/// The scenario's column forms by table, from its data types.
fn column_forms(sim: &Sim) -> HashMap<TableName, HashMap<String, ColumnForm>> {
    sim.model()
        .tables
        .iter()
        .map(|t| {
            let columns = t
                .columns
                .iter()
                .map(|c| {
                    let data_type = c.ty.data_type();
                    let form = ColumnForm {
                        binary: is_binary_data_type(&data_type),
                        kind: ColumnKind::of_data_type(&data_type),
                    };
                    (c.name.clone(), form)
                })
                .collect();
            (t.name.clone(), columns)
        })
        .collect()
}

/// Column values as JSON in the forms `run` writes its images in.
fn formed_object<'a>(
    columns: &[String],
    values: impl Iterator<Item = Option<&'a str>>,
    forms: ValueForms,
    of: Option<&HashMap<String, ColumnForm>>,
) -> serde_json::Map<String, serde_json::Value> {
    columns
        .iter()
        .zip(values)
        .map(|(c, v)| {
            let form = of.and_then(|f| f.get(c));
            let field = match v {
                None => Field::Null,
                Some(text) if form.is_some_and(|f| f.binary) => Field::text(text).into_binary(),
                Some(text) => Field::text(text),
            };
            let json = forms.field_json_of(&field, form.and_then(|f| f.kind));
            (c.clone(), json)
        })
        .collect()
}

/// `sim truth --table-state --at-scn N`.
fn table_state(sim: &mut Sim, at: u64, forms: ValueForms) -> ExitCode {
    if let Err(code) = within_reach(sim, &[("--at-scn", at)]) {
        return code;
    }
    let Some(tables) = sim.table_contents_at(at) else {
        log::error(
            "sim",
            format!(
                "--at-scn {at} is older than the undo the scenario keeps (UNDO_RETENTION); \
             give a more recent SCN"
            ),
        );
        return exit::code(exit::USAGE);
    };
    let column_forms = column_forms(sim);
    let mut out = BufWriter::new(io::stdout().lock());
    let result = (|| -> anyhow::Result<()> {
        for t in &tables {
            let of = column_forms.get(&t.name);
            for (key, values) in &t.rows {
                let line = serde_json::json!({
                    "schema": t.name.owner,
                    "table": t.name.table,
                    "key": formed_object(&t.key_columns, key.iter().map(|k| Some(k.as_str())), forms, of),
                    "row": formed_object(&t.columns, values.iter().map(Option::as_deref), forms, of),
                });
                writeln!(out, "{line}")?;
            }
        }
        for (name, scn, key) in sim.removed_by_ddl(at) {
            let columns = tables
                .iter()
                .find(|t| t.name == name)
                .map(|t| t.key_columns.clone())
                .unwrap_or_default();
            let keys = key.iter().map(|k| Some(k.as_str()));
            let line = serde_json::json!({
                "schema": name.owner,
                "table": name.table,
                "key": formed_object(&columns, keys, forms, column_forms.get(&name)),
                "removed_at_scn": scn.to_string(),
            });
            writeln!(out, "{line}")?;
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
        log::error(
            "sim",
            format!(
                "--until-scn {} must be above --from-scn {}",
                args.until_scn, args.from_scn
            ),
        );
        return exit::code(exit::USAGE);
    }
    let mut sim = match load(&args.scenario, source) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if let Err(code) = within_reach(&sim, &[("--until-scn", args.until_scn)]) {
        return code;
    }
    // The rows come from the redo; the ground truth is not needed here.
    sim.set_truth_limit(Some(0));
    // DM8's export is DM8's view: its column names, codes and XIDs.
    let forms = match RedoSource::dialect(&sim) {
        Dialect::Dm => {
            sim.set_dm_own_codes(true);
            cdcctl::source::dm::export::FORMS
        }
        _ => ORACLE_FORMS,
    };
    let rows = match session_rows(&mut sim, args) {
        Ok(r) => r,
        Err(e) => {
            log::notice(
                "sim",
                log::Level::Error,
                &e.to_string(),
                e.advice().as_deref(),
                &[],
            );
            return exit::code(exit::UNTRUSTED_DATA);
        }
    };
    let result = (|| -> anyhow::Result<()> {
        let mut w = ContentsWriter::with_forms(BufWriter::new(io::stdout().lock()), forms)
            .context("writing CSV")?;
        for r in &rows {
            w.write_row(r).context("writing CSV")?;
        }
        w.finish().context("writing CSV")?.flush()?;
        Ok(())
    })();
    finish(result)
}
