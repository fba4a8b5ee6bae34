//! Opens the source a `--source` spec names (the built-in simulator, Oracle
//! or DM8) and reads what capture needs of it: the tables asked for,
//! resolved against the dictionary, their keys and column kinds, the PDB,
//! the character sets. `tail`, `run`, `preflight` and `partitions` share it.
//! Passwords never come from the spec: `CDCCTL_PASSWORD`, the caller's
//! prompt, or an Oracle wallet.

pub mod columns;
pub mod pdb;
pub use crate::suggest;
pub mod tables;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::engine::charset::CharsetDictionary;
use crate::engine::event::ColumnKinds;
use crate::exit;
use crate::source::oracle::{OracleSource, Password, ROOT};
use crate::source::sim::{ScenarioError, Sim, BUILTINS};
use crate::source::{Catalog, RedoSource, SourceError, TableName};

use columns::{table_columns, TableColumns};
pub use pdb::point_at_pdb;
use tables::{Resolved, TableSpec};

/// Asks for the password of a user when no other way gave one (a terminal
/// prompt); `None` when there is no one to ask.
pub type Prompt = fn(&str) -> Option<Password>;

/// A redo source ready for capture, with what the engine needs to know of it.
pub struct OpenedSource {
    pub source: Box<dyn RedoSource>,
    /// `source.db` for rows without SRC_CON_NAME.
    pub db_name: String,
    /// The PDB to filter on when mining from CDB$ROOT, if the source knows it.
    pub pdb_filter: Option<String>,
    /// The tables asked for, resolved against the dictionary.
    pub tables: Resolved,
    /// Key columns of the tables in scope, for the engine's dictionary checks.
    pub key_columns: BTreeMap<TableName, Vec<String>>,
    /// LOB and XMLType columns of the tables in scope.
    pub lob_columns: BTreeMap<TableName, Vec<String>>,
    /// Every column of the tables in scope, in table order.
    pub columns: BTreeMap<TableName, Vec<String>>,
    /// RAW, LONG RAW and BLOB columns of the tables in scope.
    pub binary_columns: BTreeMap<TableName, Vec<String>>,
    /// NUMBER, DATE and TIMESTAMP columns, for the value-form options.
    pub column_kinds: Arc<ColumnKinds>,
    /// What the instance lets capture do with losses (NOARCHIVELOG,
    /// supplemental logging off): said once at the start, on the screen too.
    pub warnings: Vec<crate::preflight::startup::Condition>,
    /// Why this instance cannot give an initial snapshot (DM8 without
    /// flashback), for `run` to refuse one before it starts.
    pub snapshot_stop: Option<crate::preflight::startup::Condition>,
    /// Banner version, container and user, for headers.
    pub version: String,
    pub container: String,
    pub user: String,
    /// One line for headers: "sim:demo", "oracle://c##cdcctl@db:1521/ORCLCDB".
    pub description: String,
    /// The scenario, when the source is the built-in simulator.
    pub simulator: Option<String>,
    /// The database's character sets and the character columns in scope,
    /// to decode character data LogMiner printed as `HEXTORAW`; `None`
    /// when the database did not say which character sets it uses.
    pub charsets: Option<Arc<CharsetDictionary>>,
}

/// Why a source could not be opened, with the exit code it maps to.
#[derive(Debug)]
pub struct OpenError {
    pub exit_code: u8,
    pub message: String,
    /// The connection dropped: reconnecting and reading again may succeed.
    pub transient: bool,
}

impl OpenError {
    pub fn from_source(e: &SourceError) -> Self {
        OpenError {
            exit_code: exit::for_source(e),
            transient: e.is_transient(),
            message: exit::with_advice(e, e.advice().as_deref()),
        }
    }
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for OpenError {}

/// What `--source` names.
pub enum SourceSpec<'a> {
    Sim,
    Oracle(&'a str),
    /// `dm://USER@HOST:PORT[/SCHEMA]`: Dameng DM8.
    Dm(&'a str),
}

pub fn parse_spec(spec: &str) -> Result<SourceSpec<'_>, OpenError> {
    if spec == "sim" || spec.starts_with("sim:") || spec.starts_with("sim?") {
        return Ok(SourceSpec::Sim);
    }
    if spec.starts_with("oracle://") {
        return Ok(SourceSpec::Oracle(spec));
    }
    if spec.starts_with("dm://") {
        return Ok(SourceSpec::Dm(spec));
    }
    if spec.starts_with("yashandb://") {
        return Err(OpenError {
            exit_code: exit::USAGE,
            transient: false,
            message: "a yashandb:// source serves preflight and collect --from-source: \
                      YashanDB has no LogMiner for tail and run to read"
                .into(),
        });
    }
    // Never echo the spec: a mistyped one may hold a password.
    let hint = if crate::source::oracle::url::is_sqlplus_form(spec) {
        "; the SQL*Plus form USER/PASSWORD@HOST is not accepted: write \
         oracle://USER@HOST:PORT/SERVICE and put the password in CDCCTL_PASSWORD"
    } else {
        ""
    };
    Err(OpenError {
        exit_code: exit::USAGE,
        transient: false,
        message: format!(
            "unknown --source: use sim, sim:NAME, sim:PATH.toml, \
             oracle://USER@HOST:PORT/SERVICE, dm://USER@HOST:PORT or \
             yashandb://USER@HOST:PORT (see `cdcctl sim scenarios`){hint}"
        ),
    })
}

/// The spec as a log line may show it: without a password written in its
/// address (`USER:PASSWORD@` keeps `USER@`; such a spec is refused, but the
/// log line comes first) and without anything after `?` (options may carry
/// secrets some day; the user and host are what a log line needs).
pub fn redacted(spec: &str) -> String {
    let Some((scheme, rest)) = spec.split_once("://") else {
        return spec.split_once('?').map_or(spec, |(s, _)| s).to_string();
    };
    // The last `@` ends the user part: a password may hold any character.
    let (user, host) = match rest.rsplit_once('@') {
        Some((user, host)) => (Some(user.split_once(':').map_or(user, |(u, _)| u)), host),
        None => (None, rest),
    };
    let host = host.split_once('?').map_or(host, |(h, _)| h);
    match user {
        Some(u) => format!("{scheme}://{u}@{host}"),
        None => format!("{scheme}://{host}"),
    }
}

/// The scenario a `sim[:NAME|:PATH.toml][?options]` spec names, or `None`
/// for anything that is not the simulator.
pub fn sim_scenario(spec: &str) -> Option<&str> {
    let spec = spec.split_once('?').map_or(spec, |(s, _)| s);
    match spec {
        "sim" => Some("demo"),
        _ => spec.strip_prefix("sim:"),
    }
}

/// Starts the simulator named by a `sim[:NAME|:PATH.toml]` spec.
pub fn open_sim(spec: &str) -> Result<Sim, OpenError> {
    let (spec, script) = split_apply(spec);
    match Sim::from_source(spec) {
        Some(Ok(mut sim)) => {
            // Commands that open the simulator as a source read its redo,
            // never its ground truth (`cdcctl sim truth` loads its own), so
            // none is recorded: at tens of thousands of changes a second it
            // would be the largest thing in memory.
            sim.set_truth_limit(Some(0));
            if let Some(path) = script {
                apply_script_file(&mut sim, path)?;
            }
            Ok(sim)
        }
        Some(Err(e)) => Err(OpenError {
            exit_code: exit::USAGE,
            transient: false,
            message: scenario_error(&e),
        }),
        None => Err(OpenError {
            exit_code: exit::USAGE,
            transient: false,
            message: format!("`{spec}` is not a simulator source (sim, sim:NAME, sim:PATH.toml)"),
        }),
    }
}

/// The simulator spec without its `apply=PATH` option (the last one, after
/// `?` or `&`), and the path: a DBA script the simulator runs once opened,
/// so that a remediation script can be tried on a scenario.
fn split_apply(spec: &str) -> (&str, Option<&str>) {
    for sep in ["?apply=", "&apply="] {
        if let Some(at) = spec.find(sep) {
            return (&spec[..at], Some(&spec[at + sep.len()..]));
        }
    }
    (spec, None)
}

/// Runs the script at `path` on the simulator as SQL*Plus would: the
/// first failing statement is the error; each statement the simulator does
/// not model is said on stderr.
fn apply_script_file(sim: &mut Sim, path: &str) -> Result<(), OpenError> {
    let usage = |message: String| OpenError {
        exit_code: exit::USAGE,
        transient: false,
        message,
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| usage(format!("cannot read the script {path}: {e}")))?;
    let report = sim.apply_script(&text);
    for statement in report.not_applied() {
        eprintln!("cdcctl: simulator: not applied (not modelled): {statement}");
    }
    if let Some((r, e)) = report.failures().first() {
        return Err(usage(format!(
            "{path}:{}: {e}\n  in: {}",
            r.line, r.statement
        )));
    }
    Ok(())
}

/// A scenario that cannot be loaded, in one sentence: a mistyped built-in
/// name gets the close one.
pub fn scenario_error(e: &ScenarioError) -> String {
    match e {
        ScenarioError::UnknownBuiltin { name, .. } => {
            let close = suggest::did_you_mean(name, BUILTINS.iter().map(|b| b.name));
            if close.is_empty() {
                e.to_string()
            } else {
                format!(
                    "unknown scenario `{name}`{close} (`cdcctl sim scenarios` lists the built-in \
                     ones; a path to a .toml file also works)"
                )
            }
        }
        other => other.to_string(),
    }
}

/// Connects to Oracle; `client_lib` points at an Instant Client directory.
pub fn open_oracle(
    url: &str,
    client_lib: Option<PathBuf>,
    prompt: Prompt,
) -> Result<OracleSource, OpenError> {
    OracleSource::open_url(url, client_lib, prompt).map_err(|e| OpenError::from_source(&e))
}

/// Connects to DM8; the password follows the same rules as Oracle's.
pub fn open_dm(url: &str, prompt: Prompt) -> Result<crate::source::dm::DmSource, OpenError> {
    crate::source::dm::DmSource::open_url(url, prompt).map_err(|e| OpenError::from_source(&e))
}

/// Resolves the tables asked for and their key columns. None asked: none
/// read, since listing every table of a production database is not free,
/// unless `every_table` (a daemon pays that once, and its dictionary
/// findings then cover every table).
fn resolve_tables(
    catalog: &mut dyn Catalog,
    specs: &[TableSpec],
    every_table: bool,
    where_hint: &str,
) -> Result<(Resolved, TableColumns), OpenError> {
    if specs.is_empty() {
        if !every_table {
            return Ok((Resolved::default(), Default::default()));
        }
        let all = catalog
            .tables(&[])
            .map_err(|e| OpenError::from_source(&e))?;
        let columns = table_columns(&all);
        return Ok((Resolved::default(), columns));
    }
    let resolved = tables::resolve(catalog, specs).map_err(|message| OpenError {
        exit_code: exit::USAGE,
        transient: false,
        message: format!("{message}{where_hint}"),
    })?;
    tracing::info!(tables = %resolved.label, matched = resolved.tables.len(), "tables resolved");
    let columns = table_columns(&resolved.tables);
    Ok((resolved, columns))
}

pub fn usage_error(message: String) -> OpenError {
    OpenError {
        exit_code: exit::USAGE,
        transient: false,
        message,
    }
}

/// What a capture opens: the `--source` spec and what it reads there.
#[derive(Debug, Clone)]
pub struct CaptureSource {
    pub spec: String,
    /// An Instant Client directory (`--oracle-client-lib`).
    pub client_lib: Option<PathBuf>,
    /// The tables asked for; none: every table LogMiner returns.
    pub tables: Vec<TableSpec>,
    /// `--pdb` as typed: normalised (upper case unless quoted), checked
    /// against V$PDBS, and the PDB whose tables the catalog reads and
    /// snapshots then see. Without it, a session in the root of a CDB with
    /// a single open PDB captures that PDB.
    pub pdb: Option<String>,
    /// With no table asked for, read the key columns of every table (a
    /// daemon pays that once, and its dictionary findings then cover every
    /// table); otherwise none are read, since listing every table of a
    /// production database is not free.
    pub every_table: bool,
    pub prompt: Prompt,
}

impl CaptureSource {
    /// Opens the source and reads what capture needs. `resume_scn`: the
    /// capture resumes there, and the simulator is brought up as if it had
    /// run on to that SCN while the capture was down (a real database
    /// simply has).
    pub fn open(&self, resume_scn: Option<u64>) -> Result<OpenedSource, OpenError> {
        let spec = self.spec.as_str();
        tracing::info!(source = %redacted(spec), "opening the source");
        match parse_spec(spec)? {
            SourceSpec::Sim => {
                let mut sim = open_sim(spec)?;
                if let Some(scn) = resume_scn {
                    sim.fast_forward_to_scn(scn);
                }
                let db_name = sim.db_name().to_string();
                let scenario = sim.scenario().name.clone();
                // Shared, so snapshot readers can open sessions of their own.
                let sim = if sim.on_real_clock() {
                    crate::source::sim::threaded::Threaded::spawn(sim)
                } else {
                    crate::source::sim::threaded::Threaded::shared(sim)
                };
                let mut o = opened(sim, spec, Some(db_name), self)?;
                o.simulator = Some(scenario);
                Ok(o)
            }
            SourceSpec::Oracle(url) => opened(
                open_oracle(url, self.client_lib.clone(), self.prompt)?,
                url,
                None,
                self,
            ),
            SourceSpec::Dm(url) => opened(open_dm(url, self.prompt)?, url, None, self),
        }
    }
}

/// Points the source at the chosen PDB and reads what capture needs.
/// `db_name` overrides `source.db` (the simulator names its database).
fn opened<S: Catalog + RedoSource + 'static>(
    mut source: S,
    description: &str,
    db_name: Option<String>,
    request: &CaptureSource,
) -> Result<OpenedSource, OpenError> {
    let pdb = request.pdb.as_deref();
    // A connection that drops while the dictionary is read is reconnected
    // and the reads start over, as capture does after its own drops.
    const ATTEMPTS: u32 = 3;
    let mut attempt = 0;
    let (instance, session, pdb_filter) = loop {
        match point_at_pdb(&mut source, pdb) {
            Err(e) if e.transient && attempt < ATTEMPTS => {
                attempt += 1;
                tracing::warn!(error = %e.message, attempt, "reconnecting to read the dictionary");
                if let Err(r) = source.reconnect() {
                    tracing::warn!(error = %r, "reconnect failed");
                }
            }
            other => break other?,
        }
    };
    // What preflight fails on and capture cannot work without stops here,
    // before a capture shows healthy status lines over nothing.
    let viability = crate::preflight::startup::viability(&instance);
    if let Some(stop) = viability.stop {
        return Err(OpenError {
            exit_code: exit::UNTRUSTED_DATA,
            message: exit::with_advice(&stop.message, Some(&stop.advice)),
            transient: false,
        });
    }
    let in_root = session.con_name.is_empty() || session.con_name == ROOT;
    // From the root without a PDB, only the root's own tables are visible.
    let where_hint = if instance.cdb && in_root && pdb_filter.is_none() {
        let open: Vec<&str> = instance
            .pdbs
            .iter()
            .filter(|p| p.name != "PDB$SEED")
            .map(|p| p.name.as_str())
            .collect();
        format!(
            "; connected to CDB$ROOT, whose dictionary shows no PDB table: name the PDB with --pdb ({})",
            open.join(", ")
        )
    } else {
        String::new()
    };
    let (resolved, columns) = resolve_tables(
        &mut source,
        &request.tables,
        request.every_table,
        &where_hint,
    )?;
    let charsets = columns.charsets(&instance).map(Arc::new);
    let binary_columns = columns.binary();
    let column_kinds = Arc::new(columns.kinds());
    // Mining from CDB$ROOT: changes carry SRC_CON_NAME; elsewhere the
    // connected container (or the database) names them.
    let db_name = db_name.unwrap_or_else(|| {
        if session.con_name.is_empty() || session.con_name == ROOT {
            instance.db_name.clone()
        } else {
            session.con_name.clone()
        }
    });
    Ok(OpenedSource {
        source: Box::new(source),
        db_name,
        pdb_filter,
        tables: resolved,
        key_columns: columns.keys,
        binary_columns,
        column_kinds,
        lob_columns: columns.lobs,
        columns: columns.all,
        warnings: viability.warnings,
        snapshot_stop: crate::preflight::startup::snapshot_stop(&instance),
        version: instance.banner.clone(),
        container: session.con_name.clone(),
        user: session.user.clone(),
        description: description.to_string(),
        simulator: None,
        charsets,
    })
}

#[cfg(test)]
mod tests {
    use super::redacted;

    #[test]
    fn a_password_in_the_address_never_reaches_a_log_line() {
        for (spec, shown) in [
            (
                "oracle://cdc:S3cretPW!@127.0.0.1:1521/ORCL",
                "oracle://cdc@127.0.0.1:1521/ORCL",
            ),
            (
                "dm://cdc:S3cret/PW@127.0.0.1:15236",
                "dm://cdc@127.0.0.1:15236",
            ),
            ("oracle://cdc:p@ss?w@db/ORCL?x=1", "oracle://cdc@db/ORCL"),
            ("oracle://cdc:pa?ss@db/ORCL", "oracle://cdc@db/ORCL"),
            (
                "oracle://cdc@db:1521/ORCL?opt=1",
                "oracle://cdc@db:1521/ORCL",
            ),
            ("sim:demo?clock=virtual", "sim:demo"),
        ] {
            assert_eq!(redacted(spec), shown);
            assert!(!redacted(spec).contains("S3cret"));
        }
    }
}
