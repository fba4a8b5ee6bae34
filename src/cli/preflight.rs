//! `cdcctl preflight`: go-live checks against a source (simulator, database
//! or offline evidence), with an optional connector config to lint.
//!
//! Exit codes: 0 healthy, 1 a finding at or above `--fail-on`, 2 usage or
//! config error (unreadable config, bad evidence file, unknown check),
//! 3 source unreachable. On 2 and 3, `--format json` and `--format junit`
//! still print a report naming the error (`{"error", "exit_code"}`, or a
//! JUnit `<error>` case), so CI never reads an empty file.
//!
//! `--format json` prints one object:
//!
//! ```json
//! {"source": {"source": "sim:demo", "dialect": "oracle", "version": "19.22.0.0.0",
//!             "db_name": "ORCLCDB", "cdb": true, "user": "C##DBZUSER",
//!             "container": "CDB$ROOT", "scope": ["APP.%"], "config": null},
//!  "checks": [{"id": "archivelog-mode", "group": "instance", "status": "pass",
//!              "title": "...", "detail": "...", "evidence": ["..."],
//!              "remediation": null, "references": ["..."]}],
//!  "summary": {"pass": 40, "warn": 3, "fail": 0, "skip": 1}}
//! ```
//!
//! `status` is one of pass, warn, fail, skip; `remediation` is set for
//! warnings and failures; a skip's `detail` says which fact was missing.

use crate::cli::log;
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use cdcctl::engine::session::PlannerConfig;
use cdcctl::output::{human, junit, progress, Format};
use cdcctl::preflight::config::ConnectorConfig;
use cdcctl::preflight::defs::{self, CheckDef};
use cdcctl::preflight::facts::{Facts, RuleOptions};
use cdcctl::preflight::model::{Status, Summary};
use cdcctl::preflight::smoke::smoke_mine;
use cdcctl::source::evidence::{open_offline, EvidenceCatalog};
use cdcctl::source::sim::Clock;
use cdcctl::source::{Catalog, Dialect, RedoSource, SourceError, TablePattern};

use super::exit;
use super::source::{open_oracle, open_sim, parse_spec, OpenError, SourceSpec};
use super::GlobalArgs;
use cdcctl::connect::{suggest, tables};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    Human,
    Json,
    Junit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    Warn,
    Fail,
}

/// Go-live checks: instance, redo and archive, privileges, multitenant,
/// undo, tables, partitions, and the connector config.
#[derive(Debug, clap::Args)]
pub struct PreflightArgs {
    /// Limit the per-table checks to [SCHEMA.]TABLE (repeatable; % and _
    /// wildcards; a bare TABLE is looked up in every schema you can see).
    #[arg(long = "table", value_name = "[SCHEMA.]TABLE")]
    pub tables: Vec<String>,
    /// Connector config to lint: Flink CDC SQL, pipeline YAML, Debezium properties or JSON.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Evaluate an evidence file written by the `cdcctl collect` script instead of --source.
    #[arg(long, value_name = "FILE")]
    pub evidence: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "human")]
    pub format: FormatArg,
    /// Exit 1 when a finding is at or above this level.
    #[arg(long, value_enum, default_value = "fail")]
    pub fail_on: FailOn,
    /// Read rate assumed when estimating the snapshot's duration (MB/s).
    #[arg(long, default_value_t = 50.0, value_name = "MBPS")]
    pub snapshot_rate_mbps: f64,
    /// Rows per chunk of `cdcctl run`'s snapshot, as given to `run`: each
    /// chunk is one read, and undo retention must cover one chunk's read.
    #[arg(long, value_name = "ROWS", default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub snapshot_chunk_rows: u64,
    /// Override a check's threshold: CHECK.KEY=VALUE, e.g. fra-usage.fail=90
    /// (KEY may leave out its unit: fail for fail_pct). Repeatable.
    #[arg(long = "set", value_name = "CHECK.KEY=VALUE")]
    pub set: Vec<String>,
    /// A TOML file of threshold overrides: one table per check id, e.g.
    /// `[fra-usage]` then `fail_pct = 90`. `--set` wins over the file.
    #[arg(long, value_name = "FILE")]
    pub thresholds: Option<PathBuf>,
    /// Write every warning's and failure's remediation as one SQL*Plus
    /// script to FILE (run it with `sqlplus / as sysdba @FILE`); RMAN steps
    /// go to FILE.rman. The exit code is the report's, as without it.
    #[arg(long, value_name = "FILE")]
    pub fix_script: Option<PathBuf>,
    /// List the checks of the catalog and exit.
    #[arg(long)]
    pub list: bool,
    /// Show one check of the catalog (rule, SQL, remediation) and exit.
    #[arg(long, value_name = "ID")]
    pub explain: Option<String>,
}

/// An error that ends a command, with its exit code.
#[derive(Debug)]
pub enum CliError {
    Usage(String),
    Unreachable(String),
    /// The source reported missing or gapped redo: data cannot be trusted.
    Untrusted(String),
}

impl CliError {
    /// Prints the error as `cdcctl COMMAND: message`, like every other
    /// command's, and returns its exit code.
    pub fn exit(&self, command: &str) -> ExitCode {
        let (code, msg) = self.parts();
        log::error(command, msg);
        exit::code(code)
    }

    /// The exit code and the message.
    pub fn parts(&self) -> (u8, &str) {
        match self {
            CliError::Usage(m) => (exit::USAGE, m),
            CliError::Unreachable(m) => (exit::UNREACHABLE, m),
            CliError::Untrusted(m) => (exit::UNTRUSTED_DATA, m),
        }
    }
}

impl From<SourceError> for CliError {
    fn from(e: SourceError) -> Self {
        // The same form as tail and run: the error, then the advice below it.
        let text = exit::with_advice(&e, e.advice().as_deref());
        match e {
            // DM8's network error keeps its code and still exits 3.
            _ if e.is_unreachable() => CliError::Unreachable(text),
            SourceError::Authentication(_) | SourceError::NoClientLibrary(_) => {
                CliError::Unreachable(text)
            }
            SourceError::MissingLog { .. } | SourceError::ArchiveGap { .. } => {
                CliError::Untrusted(text)
            }
            _ => CliError::Usage(text),
        }
    }
}

/// A source that can also mine: the simulator and Oracle.
pub trait LiveSource: Catalog + RedoSource {
    fn catalog(&mut self) -> &mut dyn Catalog;
    fn redo(&mut self) -> &mut dyn RedoSource;
}

impl<T: Catalog + RedoSource> LiveSource for T {
    fn catalog(&mut self) -> &mut dyn Catalog {
        self
    }
    fn redo(&mut self) -> &mut dyn RedoSource {
        self
    }
}

/// An opened `--source`: catalog facts only, or a live source that can mine.
pub enum Opened {
    Offline(Box<dyn Catalog>),
    Live(Box<dyn LiveSource>),
}

impl Opened {
    pub fn catalog(&mut self) -> &mut dyn Catalog {
        match self {
            Opened::Offline(c) => c.as_mut(),
            Opened::Live(l) => l.catalog(),
        }
    }

    pub fn redo(&mut self) -> Option<&mut dyn RedoSource> {
        match self {
            Opened::Offline(_) => None,
            Opened::Live(l) => Some(l.redo()),
        }
    }
}

/// Opens the `--source`: `sim[:NAME|:PATH.toml]`,
/// `oracle://USER@HOST:PORT/SERVICE`, or the offline forms `facts:PATH`
/// (catalog facts as JSON, or an evidence file) and `evidence:PATH` (a
/// `cdcctl collect` file).
pub fn open_catalog(global: &GlobalArgs) -> Result<Opened, CliError> {
    tracing::info!(
        source = %global.source.split_once('?').map_or(global.source.as_str(), |(s, _)| s),
        "opening the source"
    );
    let source = global.source.as_str();
    if let Some(path) = source.strip_prefix("facts:") {
        return Ok(Opened::Offline(open_offline(path.as_ref())?));
    }
    if let Some(path) = source.strip_prefix("evidence:") {
        return Ok(Opened::Offline(Box::new(EvidenceCatalog::open(
            path.as_ref(),
        )?)));
    }
    if source.starts_with("yashandb://") {
        return super::source::open_yashandb(source)
            .map(Opened::Offline)
            .map_err(|e| match e.exit_code {
                exit::UNREACHABLE => CliError::Unreachable(e.message),
                _ => CliError::Usage(e.message),
            });
    }
    let opened: Result<Opened, OpenError> = match parse_spec(source) {
        // Catalog facts are one moment of the simulated instance: the virtual
        // clock keeps them the same however long the reads take.
        Ok(SourceSpec::Sim) => {
            open_sim(source).map(|s| Opened::Live(Box::new(s.with_clock(Clock::default()))))
        }
        Ok(SourceSpec::Oracle(url)) => {
            open_oracle(url, global.oracle_client_lib.clone()).map(|s| Opened::Live(Box::new(s)))
        }
        Ok(SourceSpec::Dm(url)) => super::source::open_dm(url).map(|s| Opened::Live(Box::new(s))),
        Err(e) => Err(OpenError {
            exit_code: e.exit_code,
            transient: e.transient,
            message: format!("{} (or facts:PATH, evidence:PATH)", e.message),
        }),
    };
    // The same form as tail and run: the error, then the advice below it.
    opened.map_err(|e| match e.exit_code {
        exit::UNREACHABLE => CliError::Unreachable(e.message),
        _ => CliError::Usage(e.message),
    })
}

pub fn parse_patterns(tables: &[String]) -> Result<Vec<TablePattern>, CliError> {
    tables
        .iter()
        .map(|t| TablePattern::parse(t).map_err(|e| CliError::Usage(format!("--table {e}"))))
        .collect()
}

fn catalog_defs() -> Result<Vec<CheckDef>, CliError> {
    defs::load().map_err(|e| CliError::Usage(format!("the built-in check catalog is broken: {e}")))
}

pub fn run(args: PreflightArgs, global: &GlobalArgs) -> ExitCode {
    let format = args.format;
    let started_at = chrono::Local::now().naive_local();
    let started = Instant::now();
    match execute(args, global) {
        Ok(code) => code,
        Err(e) => {
            let code = e.exit("preflight");
            // CI that reads a report file gets one naming the error, not 0 bytes.
            let info = junit::RunInfo {
                timestamp: started_at.format("%Y-%m-%dT%H:%M:%S").to_string(),
                hostname: hostname(),
                gather_s: started.elapsed().as_secs_f64(),
                ..Default::default()
            };
            match error_report(&e, format, &info) {
                Some(text) => {
                    exit::write_stdout(text.as_bytes());
                    code
                }
                None => code,
            }
        }
    }
}

/// The error as a report in the machine format asked for: a JSON object
/// with `error` and `exit_code`, or JUnit with one `<error>` case.
fn error_report(e: &CliError, format: FormatArg, info: &junit::RunInfo) -> Option<String> {
    let (code, message) = e.parts();
    match format {
        FormatArg::Human => None,
        FormatArg::Json => Some(format!(
            "{:#}\n",
            serde_json::json!({"error": message, "exit_code": code})
        )),
        FormatArg::Junit => Some(junit::render_error(message, code, info)),
    }
}

/// Finds a check by id, ignoring case, or says which ids are close.
fn find_def<'a>(defs: &'a mut [CheckDef], id: &str) -> Result<&'a mut CheckDef, CliError> {
    let ids: Vec<String> = defs.iter().map(|d| d.id.clone()).collect();
    defs.iter_mut()
        .find(|d| d.id.eq_ignore_ascii_case(id))
        .ok_or_else(|| {
            CliError::Usage(format!(
                "no check `{id}` (`cdcctl preflight --list` lists them){}",
                suggest::did_you_mean(id, ids.iter().map(String::as_str))
            ))
        })
}

/// Sets `check.key` to `value`; `key` may leave out its unit suffix.
fn set_threshold(
    defs: &mut [CheckDef],
    check: &str,
    key: &str,
    value: toml::Value,
) -> Result<(), CliError> {
    let def = find_def(defs, check)?;
    let keys: Vec<String> = def.thresholds.keys().cloned().collect();
    let prefixed: Vec<&String> = keys
        .iter()
        .filter(|k| {
            k.strip_prefix(key)
                .is_some_and(|rest| rest.starts_with('_'))
        })
        .collect();
    let name = if keys.iter().any(|k| k == key) {
        key.to_string()
    } else if prefixed.len() == 1 {
        prefixed[0].clone()
    } else {
        let known = if keys.is_empty() {
            "it has no thresholds".to_string()
        } else {
            format!("its thresholds: {}", keys.join(", "))
        };
        // `fial` is close to the stem `fail` of `fail_pct`.
        let stem = |k: &str| k.rsplit_once('_').map_or(k, |(a, _)| a).to_string();
        let stems: Vec<String> = keys.iter().map(|k| stem(k)).collect();
        let near = suggest::close(key, stems.iter().map(String::as_str));
        let hint = match keys.iter().find(|k| near.contains(&stem(k).as_str())) {
            Some(k) => suggest::question(&[k]),
            None => suggest::did_you_mean(key, keys.iter().map(String::as_str)),
        };
        return Err(CliError::Usage(format!(
            "check {} has no threshold `{key}` ({known}){hint}",
            def.id
        )));
    };
    let number = match &value {
        toml::Value::Integer(_) | toml::Value::Float(_) => value,
        toml::Value::String(text) => match text.trim().trim_end_matches('%').parse::<f64>() {
            Ok(v) if v.fract() == 0.0 && v.abs() < 1e15 => toml::Value::Integer(v as i64),
            Ok(v) => toml::Value::Float(v),
            Err(_) => {
                return Err(CliError::Usage(format!(
                    "{}.{name} = `{text}`: give a number",
                    def.id
                )))
            }
        },
        other => {
            return Err(CliError::Usage(format!(
                "{}.{name} = {other}: give a number",
                def.id
            )))
        }
    };
    def.thresholds.insert(name, number);
    Ok(())
}

/// Refuses a warning threshold on the far side of its failure threshold
/// (`fra-usage.warn=99` with `fail=90`): the check could never warn. Which
/// side is far is read from the defaults (`warn_pct` 85 < `fail_pct` 95:
/// higher is worse; `warn_hours` 72 > `fail_hours` 24: lower is worse).
fn check_threshold_order(defaults: &[CheckDef], defs: &[CheckDef]) -> Result<(), CliError> {
    let num = |v: Option<&toml::Value>| {
        v.and_then(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64)))
    };
    for (def, default) in defs.iter().zip(defaults) {
        for (key, _) in def
            .thresholds
            .iter()
            .filter(|(k, _)| k.starts_with("warn_"))
        {
            let unit = &key["warn_".len()..];
            let fail_key = format!("fail_{unit}");
            let (Some(w), Some(f)) = (
                num(def.thresholds.get(key)),
                num(def.thresholds.get(&fail_key)),
            ) else {
                continue;
            };
            let (Some(dw), Some(df)) = (
                num(default.thresholds.get(key)),
                num(default.thresholds.get(&fail_key)),
            ) else {
                continue;
            };
            let wrong = if dw <= df { w > f } else { w < f };
            if wrong {
                return Err(CliError::Usage(format!(
                    "{}: {key} = {w} is past {fail_key} = {f}, so the check could never warn; \
                     give a warning level {} the failure level",
                    def.id,
                    if dw <= df {
                        "at or below"
                    } else {
                        "at or above"
                    }
                )));
            }
        }
    }
    Ok(())
}

/// Applies the thresholds file, then each `--set`.
fn apply_thresholds(defs: &mut [CheckDef], args: &PreflightArgs) -> Result<(), CliError> {
    let defaults = defs.to_vec();
    apply_threshold_values(defs, args)?;
    check_threshold_order(&defaults, defs)
}

fn apply_threshold_values(defs: &mut [CheckDef], args: &PreflightArgs) -> Result<(), CliError> {
    if let Some(path) = &args.thresholds {
        let text = std::fs::read_to_string(path).map_err(|e| {
            CliError::Usage(format!(
                "cannot read thresholds file {}: {e}",
                path.display()
            ))
        })?;
        let table: toml::Table = toml::from_str(&text).map_err(|e| {
            CliError::Usage(format!(
                "thresholds file {}: not TOML of the form [CHECK] KEY = NUMBER: {e}",
                path.display()
            ))
        })?;
        for (check, keys) in table {
            let Some(keys) = keys.as_table() else {
                return Err(CliError::Usage(format!(
                    "thresholds file {}: `{check}` must be a table ([{check}] then KEY = NUMBER)",
                    path.display()
                )));
            };
            for (key, value) in keys {
                set_threshold(defs, &check, key, value.clone())?;
            }
        }
    }
    for item in &args.set {
        let parsed = item.split_once('=').and_then(|(lhs, v)| {
            lhs.split_once('.')
                .map(|(c, k)| (c.trim(), k.trim(), v.trim()))
        });
        let Some((check, key, value)) = parsed else {
            return Err(CliError::Usage(format!(
                "--set `{item}`: write CHECK.KEY=VALUE, e.g. --set fra-usage.fail=90"
            )));
        };
        set_threshold(defs, check, key, toml::Value::String(value.to_string()))?;
    }
    Ok(())
}

/// Runs each check on its own to time it, for JUnit's `time`.
fn run_timed(
    defs: &[CheckDef],
    facts: &Facts,
    label: &str,
) -> (cdcctl::preflight::model::Report, BTreeMap<String, f64>) {
    let mut report = cdcctl::preflight::run(&[], facts, label);
    let mut times = BTreeMap::new();
    for def in defs {
        let started = Instant::now();
        let one = cdcctl::preflight::run(std::slice::from_ref(def), facts, label);
        times.insert(def.id.clone(), started.elapsed().as_secs_f64());
        report.checks.extend(one.checks);
    }
    report.summary = Summary::of(&report.checks);
    (report, times)
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "localhost".into())
}

/// `--table` values as typed: `[SCHEMA.]TABLE`, wildcards allowed.
pub fn parse_specs(tables: &[String]) -> Result<Vec<tables::TableSpec>, CliError> {
    tables
        .iter()
        .map(|t| tables::parse_spec(t).map_err(|e| CliError::Usage(format!("--table {e}"))))
        .collect()
}

/// The connector config given with `--config`, parsed.
pub fn load_config(path: Option<&Path>) -> Result<Option<ConnectorConfig>, CliError> {
    path.map(|p| ConnectorConfig::load(p).map_err(|e| CliError::Usage(e.to_string())))
        .transpose()
}

/// Opens an evidence file when one is given, else `--source`; returns it
/// with the label reports name it by.
pub fn open_source(
    global: &GlobalArgs,
    evidence: Option<&Path>,
) -> Result<(Opened, String), CliError> {
    Ok(match evidence {
        Some(p) => (
            Opened::Offline(Box::new(EvidenceCatalog::open(p)?)),
            format!("evidence:{}", p.display()),
        ),
        None => (open_catalog(global)?, global.source.clone()),
    })
}

/// Reads the facts for `--table` and `--config`, as `preflight` evaluates
/// them and `collect --from-source` writes them: one gathering, so a file
/// collected from a source evaluates as the source does. A `--table` that
/// matches nothing is a usage error.
pub fn gather(
    opened: &mut Opened,
    specs: &[tables::TableSpec],
    config: Option<ConnectorConfig>,
    options: RuleOptions,
    mut progress: impl FnMut(&str),
) -> Result<Facts, CliError> {
    // Gather with the names as typed (a bare name in any schema); the
    // catalog then reads inside the PDB the capture targets, where the
    // names resolve by the rule every command shares.
    let typed: Vec<TablePattern> = specs
        .iter()
        .map(|t| TablePattern {
            owner: t.owner.clone().unwrap_or_else(|| "%".into()),
            table: t.table.clone(),
        })
        .collect();
    let mut facts = Facts::gather(opened.catalog(), &typed, config, options, |step| {
        tracing::debug!(step, "reading facts");
        progress(step);
    })?;
    tracing::info!(
        tables = facts.tables.as_ref().map_or(0, Vec::len),
        missing = facts.missing.len(),
        "facts read"
    );
    // A name that matches nothing must not pass as a clean scope.
    if !specs.is_empty() {
        let resolved = tables::resolve(opened.catalog(), specs).map_err(CliError::Usage)?;
        if let Some(in_scope) = facts.tables.as_mut() {
            in_scope.retain(|t| resolved.patterns.iter().any(|p| p.matches(&t.name)));
        }
        facts.scope = resolved.patterns;
    }
    Ok(facts)
}

fn execute(args: PreflightArgs, global: &GlobalArgs) -> Result<ExitCode, CliError> {
    let mut defs = catalog_defs()?;
    apply_thresholds(&mut defs, &args)?;
    let started_at = chrono::Local::now().naive_local();
    let started = Instant::now();
    if args.list {
        return Ok(exit::write_stdout(list(&defs).as_bytes()));
    }
    if let Some(id) = &args.explain {
        return Ok(exit::write_stdout(explain(&defs, id)?.as_bytes()));
    }
    if !(args.snapshot_rate_mbps > 0.0 && args.snapshot_rate_mbps.is_finite()) {
        return Err(CliError::Usage(format!(
            "--snapshot-rate-mbps must be a positive number, not {}",
            args.snapshot_rate_mbps
        )));
    }
    let specs = parse_specs(&args.tables)?;
    let config = load_config(args.config.as_deref())?;
    let (mut opened, label) = open_source(global, args.evidence.as_deref())?;
    if args.evidence.is_none() && args.format == FormatArg::Human {
        super::source::announce_simulator("preflight", &global.source);
    }
    let pb = progress::bar(6, "preflight");
    let mut facts = gather(
        &mut opened,
        &specs,
        config,
        RuleOptions {
            snapshot_rate_mbps: args.snapshot_rate_mbps,
            snapshot_chunk_rows: args.snapshot_chunk_rows,
        },
        |step| {
            pb.set_message(step.to_string());
            pb.inc(1);
        },
    )
    .inspect_err(|_| pb.finish_and_clear())?;
    pb.set_message("smoke mine");
    // The smoke mine is the one check that reads the database itself: its
    // time is that check's, not the gathering's.
    let smoke_s = smoke_mine_oracle(&defs, &mut facts, &mut opened);
    pb.inc(1);
    pb.finish_and_clear();
    if facts.instance.is_none() && facts.session.is_none() {
        return Err(CliError::Usage(format!(
            "{label} provides neither instance nor session facts: {}",
            facts.missing_reason("instance")
        )));
    }
    let gather_s = started.elapsed().as_secs_f64() - smoke_s;
    let (mut report, mut check_s) = run_timed(&defs, &facts, &label);
    if let Some(t) = check_s.get_mut("smoke-mine") {
        *t += smoke_s;
    }
    if facts.instance.is_none() {
        // Version, log mode, role and containers all come from V$DATABASE:
        // without it the checks that need them skip, and a run of skips
        // must not read as a green light.
        report.checks.insert(0, instance_facts_failure(&facts));
        report.summary = Summary::of(&report.checks);
    }
    for c in &report.checks {
        tracing::debug!(check = %c.id, status = ?c.status, "{}", c.detail);
    }
    let sum = &report.summary;
    tracing::info!(
        pass = sum.pass,
        warn = sum.warn,
        fail = sum.fail,
        skip = sum.skip,
        "checks evaluated"
    );
    let fail_on = match args.fail_on {
        FailOn::Warn => Status::Warn,
        FailOn::Fail => Status::Fail,
    };
    let timing = junit::RunInfo {
        timestamp: started_at.format("%Y-%m-%dT%H:%M:%S").to_string(),
        hostname: hostname(),
        gather_s,
        check_s,
    };
    if let Some(path) = &args.fix_script {
        write_fix_script(&report, path)?;
    }
    let text = render(&mut report, args.format, fail_on, timing, global.quiet)?;
    let mut out = std::io::stdout().lock();
    // A reader that went away (`| head`) does not change the verdict.
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    Ok(exit::code(if report.worst() >= fail_on {
        exit::FINDINGS
    } else {
        exit::OK
    }))
}

/// Writes the remediation scripts and says on stderr where and how much.
fn write_fix_script(
    report: &cdcctl::preflight::model::Report,
    path: &Path,
) -> Result<(), CliError> {
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let script = cdcctl::preflight::fix_script::render(report, &name);
    let write = |p: &Path, text: &str| {
        std::fs::write(p, text).map_err(|e| {
            CliError::Usage(format!("cannot write the fix script {}: {e}", p.display()))
        })
    };
    write(path, &script.sql)?;
    let mut said = format!(
        "wrote {} to {} for {}",
        cdcctl::output::count(script.statements as u64, "statement", "statements"),
        path.display(),
        cdcctl::output::count(script.checks as u64, "check", "checks")
    );
    if script.held_back > 0 {
        said.push_str(&format!(
            ", {} commented out (conditional, for later, or to fill in)",
            script.held_back
        ));
    }
    if let Some(rman) = &script.rman {
        let mut rman_path = path.as_os_str().to_owned();
        rman_path.push(".rman");
        let rman_path = PathBuf::from(rman_path);
        write(&rman_path, rman)?;
        said.push_str(&format!(
            "; {} for RMAN to {}",
            cdcctl::output::count(script.rman_statements as u64, "statement", "statements"),
            rman_path.display()
        ));
    }
    log::notice("preflight", log::Level::Info, &said, None, &[]);
    Ok(())
}

/// The smoke mine, on Oracle only: the one check that reads the database
/// itself, so its time is that check's, not the gathering's. Returns the
/// seconds it took (0 when it did not run).
fn smoke_mine_oracle(defs: &[CheckDef], facts: &mut Facts, opened: &mut Opened) -> f64 {
    let mut smoke_s = 0.0;
    let oracle = facts
        .instance
        .as_ref()
        .is_some_and(|i| i.dialect == Dialect::Oracle);
    if let (Some(redo), Some(inventory), true) = (opened.redo(), facts.inventory.clone(), oracle) {
        let max_rows = defs
            .iter()
            .find(|d| d.id == "smoke-mine")
            .map(|d| d.threshold("max_rows", 20000.0) as usize)
            .unwrap_or(20000);
        let owners = facts.scope_owners();
        let pdb = facts.target_pdb();
        let mining = Instant::now();
        facts.smoke = Some(smoke_mine(
            redo,
            &inventory,
            &PlannerConfig::default(),
            &owners,
            pdb,
            max_rows,
        ));
        smoke_s = mining.elapsed().as_secs_f64();
    }
    smoke_s
}

/// Version, log mode, role and containers all come from V$DATABASE:
/// without it the checks that need them skip, and a run of skips must not
/// read as a green light.
fn instance_facts_failure(facts: &Facts) -> cdcctl::preflight::model::CheckResult {
    cdcctl::preflight::model::CheckResult {
                id: "instance-facts".into(),
                group: "instance".into(),
                status: Status::Fail,
                title: "The database's own facts can be read".into(),
                detail: format!(
                    "{}: version, log mode, role and containers are unknown, so the checks that need them were skipped",
                    facts.missing_reason("instance")
                ),
                evidence: Vec::new(),
                remediation: Some(
                    "GRANT SELECT ON V_$DATABASE (or SELECT_CATALOG_ROLE) to the capture user, \
                     then run preflight (or collect the evidence) again"
                        .into(),
                ),
                references: Vec::new(),
            }
}

/// The report in the format asked for; quiet human output keeps failures only.
fn render(
    report: &mut cdcctl::preflight::model::Report,
    format: FormatArg,
    fail_on: Status,
    timing: junit::RunInfo,
    quiet: bool,
) -> Result<String, CliError> {
    let text = match format_of(format) {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(&report)
                .map_err(|e| CliError::Usage(format!("cannot render JSON: {e}")))?;
            s.push('\n');
            s
        }
        Format::Junit => junit::render(report, fail_on, &timing),
        Format::Human => {
            if quiet {
                // Failures only; the summary still counts every check.
                report
                    .checks
                    .retain(|c| matches!(c.status, Status::Warn | Status::Fail));
            }
            let tty = std::io::stdout().is_terminal();
            let width = cdcctl::output::stdout_width();
            human::render(report, width, tty && std::env::var_os("NO_COLOR").is_none())
        }
    };
    Ok(text)
}

fn format_of(f: FormatArg) -> Format {
    match f {
        FormatArg::Human => Format::Human,
        FormatArg::Json => Format::Json,
        FormatArg::Junit => Format::Junit,
    }
}

fn list(defs: &[CheckDef]) -> String {
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::NOTHING)
        .set_header(vec!["ID", "GROUP", "DIALECT", "TITLE"]);
    for d in defs {
        t.add_row(vec![
            d.id.clone(),
            d.group.clone(),
            format!("{:?}", d.dialect).to_lowercase(),
            d.title.clone(),
        ]);
    }
    format!(
        "{t}\n{} checks; `cdcctl preflight --explain ID` shows one\n",
        defs.len()
    )
}

fn explain(defs: &[CheckDef], id: &str) -> Result<String, CliError> {
    let mut all = defs.to_vec();
    let d = find_def(&mut all, id)?.clone();
    let mut s = format!(
        "{} — {}\ngroup: {}    dialect: {:?}\n",
        d.id, d.title, d.group, d.dialect
    );
    s.push_str(&format!("\nprevents: {}\nrule: {}\n", d.prevents, d.rule));
    if !d.thresholds.is_empty() {
        s.push_str("thresholds:");
        for (k, v) in &d.thresholds {
            s.push_str(&format!(" {k}={v}"));
        }
        s.push('\n');
    }
    for q in &d.sql {
        s.push_str(&format!(
            "\nquery {} ({:?}):\n  {}\n",
            q.name, q.dialect, q.text
        ));
    }
    s.push_str("\nremediation:\n");
    for line in d.remediation.lines() {
        s.push_str(&format!("  {line}\n"));
    }
    if !d.references.is_empty() {
        s.push_str(&format!("\nreferences: {}\n", d.references.join("; ")));
    }
    Ok(s)
}
