//! Opens the source named by `--source`: the built-in simulator or a real
//! Oracle database. Passwords never come from argv: `CDCCTL_PASSWORD`, a
//! prompt on the terminal, or an Oracle wallet.

use crate::cli::log;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

use cdcctl::engine::charset::{Charset, CharsetDictionary};
use cdcctl::engine::event::{ColumnKind, ColumnKinds};

use cdcctl::source::oracle::{OracleSource, Password, ROOT};
use cdcctl::source::sim::{ScenarioError, Sim, BUILTINS};
use cdcctl::source::{
    resolve_pdb, sole_open_pdb, Catalog, InstanceFacts, RedoSource, SessionFacts, SourceError,
    TableFacts, TableName,
};

use crate::cli::tables::{self, Resolved, TableSpec};
use crate::cli::{exit, suggest};

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
    /// RAW, LONG RAW and BLOB columns of the tables in scope.
    pub binary_columns: BTreeMap<TableName, Vec<String>>,
    /// NUMBER, DATE and TIMESTAMP columns, for the value-form options.
    pub column_kinds: Arc<ColumnKinds>,
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
    let hint = if cdcctl::source::oracle::url::is_sqlplus_form(spec) {
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

/// The spec without anything after `?` on an oracle URL (options may carry
/// secrets some day; the user and host are what a log line needs).
fn redacted(spec: &str) -> &str {
    spec.split_once('?').map_or(spec, |(s, _)| s)
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

/// The one stderr line human-format commands print when they read the
/// simulator, so its answers are never taken for a database's (unless `-q`
/// asked for errors only).
pub fn announce_simulator(command: &str, spec: &str) {
    if super::log::quiet() {
        return;
    }
    if let Some(name) = sim_scenario(spec) {
        log::notice(
            command,
            log::Level::Info,
            &format!(
                "reading the built-in simulator (scenario {name}), not a database; \
                 point at one with --source oracle://USER@HOST:PORT/SERVICE (or dm://USER@HOST:PORT) \
                 or CDCCTL_SOURCE"
            ),
            None,
            &[],
        );
    }
}

fn prompt_password(user: &str) -> Option<Password> {
    if !std::io::stdin().is_terminal() {
        return None;
    }
    rpassword::prompt_password(format!("password for {user}: "))
        .ok()
        .map(Password::new)
}

/// Starts the simulator named by a `sim[:NAME|:PATH.toml]` spec.
pub fn open_sim(spec: &str) -> Result<Sim, OpenError> {
    match Sim::from_source(spec) {
        Some(Ok(mut sim)) => {
            // Commands that open the simulator as a source read its redo,
            // never its ground truth (`cdcctl sim truth` loads its own), so
            // none is recorded: at tens of thousands of changes a second it
            // would be the largest thing in memory.
            sim.set_truth_limit(Some(0));
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
pub fn open_oracle(url: &str, client_lib: Option<PathBuf>) -> Result<OracleSource, OpenError> {
    OracleSource::open_url(url, client_lib, prompt_password).map_err(|e| OpenError::from_source(&e))
}

/// Opens YashanDB's catalog through ODBC. Without the `yashandb-odbc`
/// build feature, or without YashanDB's driver, the answer is exit 3 with
/// what to install.
pub fn open_yashandb(url: &str) -> Result<Box<dyn Catalog>, OpenError> {
    let parsed =
        cdcctl::source::yashandb::YashanUrl::parse(url).map_err(|e| usage(e.to_string()))?;
    #[cfg(not(feature = "yashandb-odbc"))]
    {
        Err(OpenError {
            exit_code: exit::UNREACHABLE,
            transient: false,
            message: format!(
                "cannot connect to YashanDB at {}:{}\n  advice: {}",
                parsed.host,
                parsed.port,
                cdcctl::source::yashandb::BUILD_ADVICE
            ),
        })
    }
    #[cfg(feature = "yashandb-odbc")]
    {
        let password = Password::from_env()
            .or_else(|| prompt_password(&parsed.user))
            .ok_or_else(|| {
                usage(format!(
                    "no password for {}: set CDCCTL_PASSWORD or run on a terminal",
                    parsed.user
                ))
            })?;
        cdcctl::source::yashandb::open(url, &password)
            .map(|c| Box::new(c) as Box<dyn Catalog>)
            .map_err(|e| match e {
                SourceError::NoClientLibrary(m) => OpenError {
                    exit_code: exit::UNREACHABLE,
                    transient: false,
                    message: format!("{m}\n  advice: {}", cdcctl::source::yashandb::DRIVER_ADVICE),
                },
                other => OpenError::from_source(&other),
            })
    }
}

/// Connects to DM8; the password follows the same rules as Oracle's.
pub fn open_dm(url: &str) -> Result<cdcctl::source::dm::DmSource, OpenError> {
    cdcctl::source::dm::DmSource::open_url(url, prompt_password)
        .map_err(|e| OpenError::from_source(&e))
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

/// What the engine needs of the tables in scope: key columns, LOB columns,
/// and every column's data type (to decode `HEXTORAW` character data).
#[derive(Default)]
struct TableColumns {
    keys: BTreeMap<TableName, Vec<String>>,
    lobs: BTreeMap<TableName, Vec<String>>,
    types: Vec<(TableName, String, String)>,
}

impl TableColumns {
    /// The columns whose written form `--decimal-handling` and
    /// `--time-precision` choose.
    fn kinds(&self) -> ColumnKinds {
        let mut out = ColumnKinds::new();
        for (name, column, data_type) in &self.types {
            if let Some(kind) = ColumnKind::of_data_type(data_type) {
                out.entry((name.owner.clone(), name.table.clone()))
                    .or_default()
                    .insert(column.clone(), kind);
            }
        }
        out
    }

    /// Per table, the columns whose values are bytes.
    fn binary(&self) -> BTreeMap<TableName, Vec<String>> {
        let mut out: BTreeMap<TableName, Vec<String>> = BTreeMap::new();
        for (name, column, data_type) in &self.types {
            let base = data_type.split('(').next().unwrap_or_default().trim();
            if ["RAW", "LONG RAW", "BLOB"]
                .iter()
                .any(|t| base.eq_ignore_ascii_case(t))
            {
                out.entry(name.clone()).or_default().push(column.clone());
            }
        }
        out
    }

    /// The character-set dictionary, when the database named character
    /// sets cdcctl decodes. An unknown one is said once and leaves hex in
    /// place (the engine then reports each such column).
    fn charsets(&self, instance: &InstanceFacts) -> Option<CharsetDictionary> {
        if instance.nls_characterset.is_empty() {
            return None;
        }
        let national = if instance.nls_nchar_characterset.is_empty() {
            "AL16UTF16"
        } else {
            instance.nls_nchar_characterset.as_str()
        };
        let pair = Charset::from_oracle_name(&instance.nls_characterset)
            .and_then(|db| Ok((db, Charset::from_oracle_name(national)?)));
        let (database, national) = match pair {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!(
                    "{e}: character data LogMiner prints as HEXTORAW stays hex (NLS_CHARACTERSET {}, NLS_NCHAR_CHARACTERSET {national})",
                    instance.nls_characterset
                );
                return None;
            }
        };
        let mut dict = CharsetDictionary::new(database, national);
        for (name, column, data_type) in &self.types {
            dict.add_column(&name.owner, &name.table, column, data_type);
        }
        Some(dict)
    }
}

/// Key columns of every table, and the LOB, XMLType and JSON columns of those
/// that have any: an UPDATE or DELETE image lacking one gets the
/// unavailable marker for it.
fn table_columns(tables: &[TableFacts]) -> TableColumns {
    let keys = tables
        .iter()
        .map(|t| (t.name.clone(), t.key_columns()))
        .collect();
    let lobs = tables
        .iter()
        .map(|t| {
            let lobs = t
                .columns
                .iter()
                .filter(|c| {
                    matches!(
                        c.data_type.to_ascii_uppercase().as_str(),
                        "CLOB" | "NCLOB" | "BLOB" | "XMLTYPE" | "JSON"
                    )
                })
                .map(|c| c.name.clone())
                .collect::<Vec<_>>();
            (t.name.clone(), lobs)
        })
        .filter(|(_, lobs)| !lobs.is_empty())
        .collect();
    let types = tables
        .iter()
        .flat_map(|t| {
            t.columns
                .iter()
                .map(|c| (t.name.clone(), c.name.clone(), c.data_type.clone()))
        })
        .collect();
    TableColumns { keys, lobs, types }
}

/// What `--pdb` asks of an opened source.
#[derive(Debug, PartialEq, Eq)]
enum PdbChoice {
    /// No PDB named.
    None,
    /// Connected to CDB$ROOT: read this PDB's tables inside it and filter
    /// the redo on SRC_CON_NAME.
    FromRoot(String),
    /// Connected to that PDB already: per-PDB mining, no filter.
    Connected,
}

fn usage(message: String) -> OpenError {
    OpenError {
        exit_code: exit::USAGE,
        transient: false,
        message,
    }
}

/// Checks `--pdb` against `V$PDBS` and the session's container.
fn choose_pdb(
    requested: Option<&str>,
    instance: &InstanceFacts,
    session: &SessionFacts,
) -> Result<PdbChoice, OpenError> {
    let in_root = session.con_name.is_empty() || session.con_name == ROOT;
    let Some(requested) = requested else {
        return Ok(
            match (instance.cdb && in_root, sole_open_pdb(&instance.pdbs)) {
                (true, Some(only)) => PdbChoice::FromRoot(only),
                _ => PdbChoice::None,
            },
        );
    };
    if !instance.cdb {
        return Err(usage(format!(
            "--pdb {requested}: {} is not a multitenant database (V$DATABASE.CDB = NO); drop --pdb",
            instance.db_name
        )));
    }
    let name = resolve_pdb(requested, &instance.pdbs).map_err(|e| usage(format!("--pdb: {e}")))?;
    if in_root {
        return Ok(PdbChoice::FromRoot(name));
    }
    if session.con_name == name {
        return Ok(PdbChoice::Connected);
    }
    Err(usage(format!(
        "--pdb {name}: the session is connected to {}; connect to CDB$ROOT to mine another PDB, or drop --pdb",
        session.con_name
    )))
}

/// Reads the instance and session facts and points table reads at the PDB
/// `--pdb` names (or the only open one, from the root). Returns the PDB to
/// filter the redo on, if any.
pub fn point_at_pdb(
    catalog: &mut dyn Catalog,
    pdb: Option<&str>,
) -> Result<(InstanceFacts, SessionFacts, Option<String>), OpenError> {
    let instance = catalog.instance().map_err(|e| OpenError::from_source(&e))?;
    let session = catalog.session().map_err(|e| OpenError::from_source(&e))?;
    let filter = match choose_pdb(pdb, &instance, &session)? {
        PdbChoice::FromRoot(name) => {
            catalog
                .set_pdb(Some(&name))
                .map_err(|e| OpenError::from_source(&e))?;
            Some(name)
        }
        PdbChoice::None | PdbChoice::Connected => None,
    };
    Ok((instance, session, filter))
}

/// Opens `--source` for capture. `pdb` is `--pdb` as typed: normalised
/// (upper case unless quoted), checked against V$PDBS, and the PDB whose
/// tables the catalog reads and snapshots then see. Without `--pdb`, a
/// session in the root of a CDB with a single open PDB captures that PDB.
pub fn open_redo_source(
    spec: &str,
    client_lib: Option<PathBuf>,
    tables: &[TableSpec],
    pdb: Option<&str>,
) -> Result<OpenedSource, OpenError> {
    open_redo_source_at(spec, client_lib, tables, pdb, None, false)
}

/// Like [`open_redo_source`], for a capture resuming at `resume_scn`: the
/// simulator is brought up as if it had run on to that SCN while the
/// capture was down (a real database simply has). With `every_table`, key
/// columns are read for every table when `tables` is empty.
pub fn open_redo_source_at(
    spec: &str,
    client_lib: Option<PathBuf>,
    tables: &[TableSpec],
    pdb: Option<&str>,
    resume_scn: Option<u64>,
    every_table: bool,
) -> Result<OpenedSource, OpenError> {
    tracing::info!(source = %redacted(spec), "opening the source");
    match parse_spec(spec)? {
        SourceSpec::Sim => {
            let mut sim = open_sim(spec)?;
            if let Some(scn) = resume_scn {
                sim.fast_forward_to_scn(scn);
            }
            let db_name = sim.db_name().to_string();
            let scenario = sim.scenario().name.clone();
            let mut o = if sim.on_real_clock() {
                let sim = cdcctl::source::sim::threaded::Threaded::spawn(sim);
                opened(sim, spec, Some(db_name), tables, pdb, every_table)?
            } else {
                opened(sim, spec, Some(db_name), tables, pdb, every_table)?
            };
            o.simulator = Some(scenario);
            Ok(o)
        }
        SourceSpec::Oracle(url) => opened(
            open_oracle(url, client_lib)?,
            url,
            None,
            tables,
            pdb,
            every_table,
        ),
        SourceSpec::Dm(url) => opened(open_dm(url)?, url, None, tables, pdb, every_table),
    }
}

/// Points the source at the chosen PDB and reads what capture needs.
/// `db_name` overrides `source.db` (the simulator names its database).
fn opened<S: Catalog + RedoSource + 'static>(
    mut source: S,
    description: &str,
    db_name: Option<String>,
    tables: &[TableSpec],
    pdb: Option<&str>,
    every_table: bool,
) -> Result<OpenedSource, OpenError> {
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
    let (resolved, columns) = resolve_tables(&mut source, tables, every_table, &where_hint)?;
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
    use super::*;
    use cdcctl::source::PdbFacts;

    fn cdb() -> InstanceFacts {
        InstanceFacts {
            db_name: "ORCLCDB".into(),
            cdb: true,
            pdbs: vec![
                PdbFacts {
                    name: "ORCLPDB1".into(),
                    con_id: 3,
                    open_mode: "READ WRITE".into(),
                    ..Default::default()
                },
                PdbFacts {
                    name: "ORCLPDB2".into(),
                    con_id: 4,
                    open_mode: "READ WRITE".into(),
                    ..Default::default()
                },
            ],
            ..Default::default()
        }
    }

    fn in_container(name: &str) -> SessionFacts {
        SessionFacts {
            con_name: name.into(),
            ..Default::default()
        }
    }

    #[test]
    fn pdb_from_root_is_normalised_and_checked_against_v_pdbs() {
        let root = in_container(ROOT);
        assert_eq!(
            choose_pdb(Some("orclpdb1"), &cdb(), &root).expect("known PDB"),
            PdbChoice::FromRoot("ORCLPDB1".into())
        );
        let err = choose_pdb(Some("nosuch"), &cdb(), &root).expect_err("unknown PDB");
        assert_eq!(err.exit_code, exit::USAGE);
        assert!(
            err.message.contains("ORCLPDB1, ORCLPDB2"),
            "{}",
            err.message
        );
        assert_eq!(
            choose_pdb(None, &cdb(), &root).expect("none"),
            PdbChoice::None
        );
    }

    #[test]
    fn pdb_of_a_session_connected_to_it_mines_per_pdb() {
        let inside = in_container("ORCLPDB1");
        assert_eq!(
            choose_pdb(Some("orclpdb1"), &cdb(), &inside).expect("same PDB"),
            PdbChoice::Connected
        );
        let err = choose_pdb(Some("orclpdb2"), &cdb(), &inside).expect_err("other PDB");
        assert!(
            err.message.contains("connected to ORCLPDB1"),
            "{}",
            err.message
        );
    }

    #[test]
    fn pdb_on_a_non_cdb_is_a_usage_error() {
        let facts = InstanceFacts {
            db_name: "ORCL".into(),
            ..Default::default()
        };
        let err = choose_pdb(Some("X"), &facts, &in_container("")).expect_err("non-CDB");
        assert_eq!(err.exit_code, exit::USAGE);
    }

    fn orders_with(columns: &[(&str, &str)]) -> TableFacts {
        TableFacts {
            name: TableName {
                owner: "APP".into(),
                table: "ORDERS".into(),
            },
            columns: columns
                .iter()
                .map(|(name, ty)| cdcctl::source::ColumnFacts {
                    name: (*name).into(),
                    data_type: (*ty).into(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn character_columns_decode_with_the_database_and_national_character_sets() {
        use cdcctl::engine::charset::TextColumn;
        let columns = table_columns(&[orders_with(&[
            ("ID", "NUMBER"),
            ("NOTE", "VARCHAR2"),
            ("NAME_N", "NVARCHAR2"),
        ])]);
        let facts = InstanceFacts {
            nls_characterset: "ZHS16GBK".into(),
            nls_nchar_characterset: "AL16UTF16".into(),
            ..Default::default()
        };
        let dict = columns.charsets(&facts).expect("known character sets");
        assert_eq!(dict.column("APP", "ORDERS", "ID"), Some(None));
        assert_eq!(
            dict.column("APP", "ORDERS", "NOTE"),
            Some(Some(TextColumn::Database))
        );
        assert_eq!(
            dict.column("APP", "ORDERS", "NAME_N"),
            Some(Some(TextColumn::National))
        );
        // "中文" in GBK, as LogMiner prints it when it cannot show the text.
        assert_eq!(
            dict.charset(TextColumn::Database).decode_hex("d6d0cec4"),
            Ok("中文".to_string())
        );
    }

    #[test]
    fn unknown_or_unreported_character_sets_leave_hex_for_the_engine_to_report() {
        let columns = table_columns(&[orders_with(&[("NOTE", "VARCHAR2")])]);
        assert!(columns.charsets(&InstanceFacts::default()).is_none());
        let odd = InstanceFacts {
            nls_characterset: "XX8NOSUCH".into(),
            ..Default::default()
        };
        assert!(columns.charsets(&odd).is_none());
    }
}
