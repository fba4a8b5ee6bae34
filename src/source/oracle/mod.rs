//! The real Oracle backend: `RedoSource` and `Catalog` over the `oracle`
//! crate (ODPI-C, loading the Oracle client library at the first connect).
//!
//! The layer is thin on purpose: statement texts live in [`sql`], row
//! mappings in [`rows`], error mapping in [`error`], so each is tested
//! without a database; this module only prepares, binds, fetches and hands
//! text rows to those functions.

pub mod catalog;
pub mod error;
pub mod extents;
pub mod rows;
mod snapshot;
pub mod sql;
pub mod url;

use std::collections::HashMap;
use std::path::PathBuf;

use ::oracle::sql_type::ToSql;
use ::oracle::{Connection, Connector, ResultSet, Row};

use crate::engine::row::{LogMinerRow, Scn};
use crate::source::{
    ArchivedLog, ContentsQuery, LogInventory, RedoSource, RedoThread, ScnTime, SessionRequest,
    SnapshotChunk, SourceError, TableName,
};

pub use error::map_error;
pub use url::{ConnectSpec, Password, Target, UrlError, PASSWORD_ENV};

use rows::{Reader, RowAccess};
use snapshot::{check_after_key, chunk_from_rows, snapshot_meta_from_rows, SnapshotMeta};
use sql::{BindValue, BoundSql, SnapshotKey, ValueKind};

/// Rows fetched per round trip from `V$LOGMNR_CONTENTS`. Safe only because
/// every query covers a bounded SCN window: an open-ended query would block
/// until this many rows exist.
pub const CONTENTS_FETCH_SIZE: u32 = 10_000;

/// Rows fetched per round trip of a snapshot chunk.
pub const SNAPSHOT_FETCH_SIZE: u32 = 5_000;

/// Rows per round trip of catalog and inventory queries.
const CATALOG_FETCH_SIZE: u32 = 1_000;

/// ORA-01307: no LogMiner session is currently active.
const NO_LOGMINER_SESSION: u32 = 1307;

/// ORA-01284 (file cannot be opened) and ORA-00313 (open failed for members
/// of log group): an online log member is unreadable, another member of the
/// same group may not be.
const UNREADABLE_MEMBER: &[u32] = &[1284, 313];

/// The root container's name.
pub const ROOT: &str = "CDB$ROOT";

/// How to reach a database.
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    pub spec: ConnectSpec,
    /// Required unless the address has no user (wallet).
    pub password: Option<Password>,
    /// Directory of the Oracle client library, when it is not on the
    /// loader's path.
    pub client_lib_dir: Option<PathBuf>,
}

impl ConnectOptions {
    /// Parses the address; the password comes from the caller (environment
    /// or prompt), never from the address.
    pub fn new(url: &str, password: Option<Password>) -> Result<Self, SourceError> {
        let spec = ConnectSpec::parse(url).map_err(|e| SourceError::Invalid(e.to_string()))?;
        Ok(ConnectOptions {
            spec,
            password,
            client_lib_dir: None,
        })
    }

    pub fn with_client_lib_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.client_lib_dir = dir;
        self
    }

    /// A password is still missing: the address names a user and none was
    /// given. The CLI prompts in that case.
    pub fn needs_password(&self) -> bool {
        self.spec.user.is_some() && self.password.is_none()
    }

    /// Fills a missing password from `CDCCTL_PASSWORD`, then from `prompt`
    /// (called with the user name). A wallet address needs neither.
    pub fn resolve_password(mut self, prompt: impl FnOnce(&str) -> Option<Password>) -> Self {
        if !self.needs_password() {
            return self;
        }
        self.password = Password::from_env();
        if self.password.is_none() {
            if let Some(user) = self.spec.user.clone() {
                self.password = prompt(&user);
            }
        }
        self
    }
}

/// Loads the Oracle client library from `dir` before the first connect.
/// Later calls have no effect (the library is loaded once per process).
pub fn init_client(dir: &std::path::Path) -> Result<(), SourceError> {
    let mut params = ::oracle::InitParams::new();
    params
        .oracle_client_lib_dir(dir)
        .map_err(|e| map_error(&e))?;
    params.init().map_err(|e| map_error(&e))?;
    Ok(())
}

/// A connected Oracle database.
pub struct OracleSource {
    options: ConnectOptions,
    // Declared before `conn` so an open query is dropped before its connection.
    cursor: Option<ResultSet<'static, Row>>,
    conn: Connection,
    major_version: u32,
    contents_fetch_size: u32,
    snapshot_meta: HashMap<TableName, SnapshotMeta>,
    /// Log files added to the running LogMiner session; a START_LOGMNR over
    /// the same files reuses them instead of adding them again.
    added_logs: Vec<String>,
    /// The container the connection opened in (`None` before 12c or in a
    /// non-CDB).
    home: Option<Container>,
    /// The PDB whose tables catalog reads and snapshots see, when the
    /// session mines from CDB$ROOT.
    pdb: Option<String>,
    /// The container the session is in right now.
    current: Option<String>,
    /// Schemas left out of an unfiltered contents query.
    oracle_schemas: Vec<String>,
    /// Every readable member of each online group, by member, from the last
    /// inventory: an unreadable member is replaced by the next one.
    online_members: HashMap<String, Vec<String>>,
}

/// The connection's container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Container {
    pub name: String,
    /// 0 in a non-CDB, 1 in CDB$ROOT, 3 and above in a PDB.
    pub con_id: u32,
}

impl Container {
    pub fn is_pdb(&self) -> bool {
        self.con_id > 2
    }
}

impl std::fmt::Debug for OracleSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OracleSource")
            .field("spec", &self.options.spec)
            .field("major_version", &self.major_version)
            .finish_non_exhaustive()
    }
}

fn open(options: &ConnectOptions) -> Result<(Connection, u32), SourceError> {
    if let Some(dir) = &options.client_lib_dir {
        init_client(dir)?;
    }
    let connect_string = options.spec.connect_string();
    let connector = match (&options.spec.user, &options.password) {
        (None, _) => {
            let mut c = Connector::new("", "", connect_string);
            c.external_auth(true);
            c
        }
        (Some(user), Some(password)) => {
            Connector::new(user.as_str(), password.expose(), connect_string)
        }
        (Some(user), None) => return Err(SourceError::NoPassword(user.to_string())),
    };
    let conn = connector.connect().map_err(|e| map_error(&e))?;
    for statement in sql::SESSION_SETTINGS {
        conn.execute(statement, &[]).map_err(|e| map_error(&e))?;
    }
    // Shows up in V$SESSION.MODULE so DBAs can tell cdcctl's sessions apart.
    let _ = conn.set_module("cdcctl");
    let major = conn
        .server_version()
        .map(|(v, _)| u32::try_from(v.major()).unwrap_or(0))
        .map_err(|e| map_error(&e))?;
    Ok((conn, major))
}

/// Runs `f` with the binds of a statement as the crate wants them.
fn with_binds<T>(binds: &[(String, BindValue)], f: impl FnOnce(&[(&str, &dyn ToSql)]) -> T) -> T {
    let values: Vec<(&str, &dyn ToSql)> = binds
        .iter()
        .map(|(name, value)| {
            let v: &dyn ToSql = match value {
                BindValue::Text(t) => t,
                BindValue::Number(n) => n,
            };
            (name.as_str(), v)
        })
        .collect();
    f(&values)
}

/// Every column of a row as text.
fn text_row(row: &Row) -> Result<Vec<Option<String>>, SourceError> {
    (0..row.sql_values().len()).map(|i| row.text(i)).collect()
}

impl OracleSource {
    /// Connects and applies the session settings SQL_REDO parsing relies on.
    /// Without an Oracle client library this fails at once with
    /// `SourceError::NoClientLibrary`.
    pub fn connect(options: ConnectOptions) -> Result<Self, SourceError> {
        let (conn, major_version) = open(&options)?;
        let mut source = OracleSource {
            options,
            cursor: None,
            conn,
            major_version,
            contents_fetch_size: CONTENTS_FETCH_SIZE,
            snapshot_meta: HashMap::new(),
            added_logs: Vec::new(),
            home: None,
            pdb: None,
            current: None,
            oracle_schemas: sql::builtin_oracle_schemas(),
            online_members: HashMap::new(),
        };
        if major_version >= 12 {
            source.home = source.read_container()?;
            source.current = source.home.as_ref().map(|c| c.name.clone());
            source.oracle_schemas = source.read_oracle_schemas()?;
        }
        Ok(source)
    }

    /// `SYS_CONTEXT('USERENV', 'CON_NAME'/'CON_ID')`.
    fn read_container(&self) -> Result<Option<Container>, SourceError> {
        let rows = self.query_plain(sql::SESSION_CONTAINER)?;
        let Some(row) = rows.first() else {
            return Ok(None);
        };
        let r = Reader::new(row, "USERENV");
        Ok(Some(Container {
            name: r.text_or_empty(0)?,
            con_id: r.small(1, "CON_ID")?,
        }))
    }

    /// The dictionary's list of Oracle-maintained users; the built-in list
    /// where the column is missing or the list comes back empty.
    fn read_oracle_schemas(&self) -> Result<Vec<String>, SourceError> {
        match self.query_plain(sql::ORACLE_MAINTAINED_USERS) {
            Ok(rows) => {
                let names: Vec<String> = rows
                    .into_iter()
                    .filter_map(|r| r.into_iter().next().flatten())
                    .collect();
                Ok(if names.is_empty() {
                    sql::builtin_oracle_schemas()
                } else {
                    names
                })
            }
            Err(e) if matches!(e.ora_code(), Some(904 | 942)) => Ok(sql::builtin_oracle_schemas()),
            Err(e) => Err(e),
        }
    }

    /// Mining inside a PDB the session connected to (19c and later):
    /// `START_LOGMNR` finds the logs itself and `ADD_LOGFILE` is refused.
    pub fn per_pdb_mining(&self) -> bool {
        self.major_version >= 19 && self.home.as_ref().is_some_and(Container::is_pdb)
    }

    /// Catalog reads and snapshots see the tables of `pdb` from now on,
    /// while LogMiner keeps running in CDB$ROOT. The name must be one
    /// `V$PDBS` shows (the caller checks that first): it is written into the
    /// `ALTER SESSION` as a quoted identifier.
    pub fn use_pdb(&mut self, pdb: Option<String>) -> Result<(), SourceError> {
        if let Some(name) = &pdb {
            if sql::set_container(name).is_none() {
                return Err(SourceError::Invalid(format!(
                    "PDB name `{name}` cannot be written as an identifier"
                )));
            }
            let root = self.home.as_ref().is_some_and(|h| h.name == ROOT);
            if !root {
                return Err(SourceError::Invalid(format!(
                    "--pdb {name} needs a connection to CDB$ROOT (connected to {})",
                    self.home.as_ref().map_or("a non-CDB", |h| h.name.as_str())
                )));
            }
        }
        self.snapshot_meta.clear();
        self.pdb = pdb;
        Ok(())
    }

    /// Moves the session into `target` unless it is there already. Leaving
    /// the root ends the LogMiner session first: its state belongs to the
    /// container it was started in.
    fn enter(&mut self, target: &str) -> Result<(), SourceError> {
        if self.current.as_deref() == Some(target) {
            return Ok(());
        }
        self.cursor = None;
        if !self.added_logs.is_empty() {
            self.end_logminer()?;
        }
        let text = if target == ROOT {
            sql::ROOT_CONTAINER.to_string()
        } else {
            sql::set_container(target).ok_or_else(|| {
                SourceError::Invalid(format!(
                    "PDB name `{target}` cannot be written as an identifier"
                ))
            })?
        };
        // Forget where the session is if the switch fails half way.
        self.current = None;
        self.conn.execute(&text, &[]).map_err(|e| map_error(&e))?;
        // The literal formats snapshot reads and SQL_REDO rely on are set
        // again rather than trusted to survive the switch.
        for statement in sql::SESSION_SETTINGS {
            self.conn
                .execute(statement, &[])
                .map_err(|e| map_error(&e))?;
        }
        self.current = Some(target.to_string());
        Ok(())
    }

    /// Into the PDB named by [`Self::use_pdb`], for table metadata,
    /// flashback probes and snapshot reads.
    fn enter_pdb(&mut self) -> Result<(), SourceError> {
        match self.pdb.clone() {
            Some(pdb) => self.enter(&pdb),
            None => Ok(()),
        }
    }

    /// Back into the container the connection opened in, before
    /// `DBMS_LOGMNR` calls and the redo views.
    fn enter_home(&mut self) -> Result<(), SourceError> {
        match (&self.pdb, self.home.clone()) {
            (Some(_), Some(home)) => self.enter(&home.name),
            _ => Ok(()),
        }
    }

    fn end_logminer(&mut self) -> Result<(), SourceError> {
        self.cursor = None;
        self.added_logs.clear();
        match self.conn.execute(sql::END_LOGMNR, &[]) {
            Ok(_) => Ok(()),
            Err(e) if error::ora_code(&e) == Some(NO_LOGMINER_SESSION) => Ok(()),
            Err(e) => Err(map_error(&e)),
        }
    }

    /// `ADD_LOGFILE` of one file, trying the group's other members when an
    /// online member cannot be opened.
    fn add_logfile(&self, file: &str, first: bool) -> Result<(), SourceError> {
        let text = if first {
            sql::ADD_LOGFILE_NEW
        } else {
            sql::ADD_LOGFILE_ADDFILE
        };
        let candidates = member_candidates(file, &self.online_members);
        let mut last = None;
        for name in candidates {
            match self.execute(&BoundSql {
                text: text.to_string(),
                binds: vec![("name".to_string(), BindValue::Text(name))],
            }) {
                Ok(()) => return Ok(()),
                Err(e) if e.ora_code().is_some_and(|c| UNREADABLE_MEMBER.contains(&c)) => {
                    last = Some(e);
                }
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| SourceError::Invalid(format!("no member of {file} to add"))))
    }

    /// Rows per round trip of the contents query. The client allocates
    /// this many rows of buffers (about 4 KB each for SQL_REDO), so a
    /// smaller value trades round trips for memory.
    pub fn set_contents_fetch_size(&mut self, rows: u32) {
        self.contents_fetch_size = rows.max(1);
    }

    /// Parses `url`, fills the password (`CDCCTL_PASSWORD`, else `prompt`)
    /// and connects: the one call a command needs.
    pub fn open_url(
        url: &str,
        client_lib_dir: Option<PathBuf>,
        prompt: impl FnOnce(&str) -> Option<Password>,
    ) -> Result<Self, SourceError> {
        let options = ConnectOptions::new(url, None)?
            .with_client_lib_dir(client_lib_dir)
            .resolve_password(prompt);
        Self::connect(options)
    }

    /// The server's major release (11, 12, 18, 19, 21, 23).
    pub fn major_version(&self) -> u32 {
        self.major_version
    }

    /// Runs a small query and returns every row as text.
    fn query_text(&self, bound: &BoundSql) -> Result<Vec<Vec<Option<String>>>, SourceError> {
        // V$ARCHIVED_LOG can hold tens of thousands of rows; the driver's
        // default of 100 rows per round trip would make that slow.
        let stmt = self
            .conn
            .statement(&bound.text)
            .prefetch_rows(CATALOG_FETCH_SIZE)
            .fetch_array_size(CATALOG_FETCH_SIZE)
            .build()
            .map_err(|e| map_error(&e))?;
        let rs = with_binds(&bound.binds, |b| stmt.into_result_set_named::<Row>(b))
            .map_err(|e| map_error(&e))?;
        let mut out = Vec::new();
        for row in rs {
            let row = row.map_err(|e| map_error(&e))?;
            out.push(text_row(&row)?);
        }
        Ok(out)
    }

    fn query_plain(&self, text: &str) -> Result<Vec<Vec<Option<String>>>, SourceError> {
        self.query_text(&BoundSql {
            text: text.to_string(),
            binds: Vec::new(),
        })
    }

    fn execute(&self, bound: &BoundSql) -> Result<(), SourceError> {
        with_binds(&bound.binds, |b| self.conn.execute_named(&bound.text, b))
            .map(|_| ())
            .map_err(|e| map_error(&e))
    }

    fn snapshot_meta(&mut self, table: &TableName) -> Result<SnapshotMeta, SourceError> {
        if let Some(meta) = self.snapshot_meta.get(table) {
            return Ok(meta.clone());
        }
        let binds = table_binds(table);
        self.enter_pdb()?;
        let cols = self.query_text(&BoundSql {
            text: sql::table_columns(self.major_version).to_string(),
            binds: binds.clone(),
        })?;
        let keys = self.query_text(&BoundSql {
            text: sql::TABLE_KEYS.to_string(),
            binds: binds.clone(),
        })?;
        let mut meta = snapshot_meta_from_rows(table, &cols, &keys)?;
        if meta.key == SnapshotKey::RowId {
            let rows = self.query_text(&BoundSql {
                text: sql::TABLE_EXTENTS.to_string(),
                binds,
            });
            meta.extents = match rows {
                Ok(rows) => extents::extents_from_rows(&rows)?,
                // Without DBA_EXTENTS the read orders the whole table by ROWID.
                Err(e) if matches!(e.ora_code(), Some(942 | 1031)) => None,
                Err(e) => return Err(e),
            };
        }
        self.snapshot_meta.insert(table.clone(), meta.clone());
        Ok(meta)
    }
}

impl RedoSource for OracleSource {
    fn describe(&self) -> String {
        self.options.spec.to_string()
    }

    fn current_scn(&mut self) -> Result<ScnTime, SourceError> {
        let rows = self.query_plain(sql::CURRENT_SCN)?;
        let row = rows
            .first()
            .ok_or_else(|| SourceError::Invalid("V$DATABASE returned no row".into()))?;
        let (scn, time) = rows::scn_time(row)?;
        Ok(ScnTime { scn, time })
    }

    fn open_transactions(&mut self) -> Result<Vec<crate::source::OpenTransaction>, SourceError> {
        crate::source::Catalog::open_transactions(self)
    }

    fn session_transactions(
        &mut self,
    ) -> Result<Vec<crate::source::SessionTransaction>, SourceError> {
        OracleSource::session_transactions(self)
    }

    fn incarnation(&mut self) -> Result<crate::source::Incarnation, SourceError> {
        let rows = self.query_plain(sql::INCARNATION)?;
        let row = rows
            .first()
            .ok_or_else(|| SourceError::Invalid("V$DATABASE returned no row".into()))?;
        rows::incarnation(row)
    }

    fn log_inventory(&mut self) -> Result<LogInventory, SourceError> {
        self.enter_home()?;
        let mut inventory = self.online_inventory()?;
        inventory.archived = self
            .query_plain(sql::ARCHIVED_LOGS)?
            .iter()
            .map(rows::archived_log)
            .collect::<Result<_, _>>()?;
        inventory.threads = self.redo_threads()?;
        Ok(inventory)
    }

    fn redo_threads(&mut self) -> Result<Vec<RedoThread>, SourceError> {
        self.enter_home()?;
        self.query_plain(sql::THREADS)?
            .iter()
            .map(rows::redo_thread)
            .collect()
    }

    fn online_inventory(&mut self) -> Result<LogInventory, SourceError> {
        self.enter_home()?;
        let resetlogs = self.query_plain(sql::RESETLOGS_CHANGE)?;
        let resetlogs_change = match resetlogs.first() {
            Some(r) => Reader::new(r, "V$DATABASE").u64_or_zero(0, "RESETLOGS_CHANGE#")?,
            None => 0,
        };
        let online = rows::online_logs(&self.query_plain(sql::ONLINE_LOGS)?)?;
        self.online_members = online
            .iter()
            .flat_map(|log| {
                log.member_files
                    .iter()
                    .map(|m| (m.clone(), log.member_files.clone()))
            })
            .collect();
        let destinations = self
            .query_plain(sql::ARCHIVE_DESTS)?
            .iter()
            .map(rows::archive_dest)
            .collect::<Result<_, _>>()?;
        Ok(LogInventory {
            resetlogs_change,
            online,
            archived: Vec::new(),
            destinations,
            threads: Vec::new(),
        })
    }

    fn archived_logs_from(
        &mut self,
        from_scn: Scn,
        dest_id: u32,
    ) -> Result<Vec<ArchivedLog>, SourceError> {
        self.enter_home()?;
        self.query_text(&archived_logs_bound(from_scn, dest_id))?
            .iter()
            .map(rows::archived_log)
            .collect()
    }

    fn start_session(&mut self, request: &SessionRequest) -> Result<(), SourceError> {
        self.enter_home()?;
        self.cursor = None;
        let plan = session_plan(request, self.per_pdb_mining(), &self.added_logs)?;
        if let Some(files) = &plan.add {
            self.added_logs.clear();
            for (i, file) in files.iter().enumerate() {
                self.add_logfile(file, i == 0)?;
            }
            self.added_logs = files.clone();
        }
        self.execute(&plan.start)
    }

    fn query_contents(&mut self, query: &ContentsQuery) -> Result<(), SourceError> {
        self.enter_home()?;
        self.cursor = None;
        let bound = self.contents_bound(query);
        let stmt = self
            .conn
            .statement(&bound.text)
            .prefetch_rows(self.contents_fetch_size)
            .fetch_array_size(self.contents_fetch_size)
            .build()
            .map_err(|e| map_error(&e))?;
        let rs = with_binds(&bound.binds, |b| stmt.into_result_set_named::<Row>(b))
            .map_err(|e| map_error(&e))?;
        self.cursor = Some(rs);
        Ok(())
    }

    fn fetch(&mut self, max_rows: usize, out: &mut Vec<LogMinerRow>) -> Result<usize, SourceError> {
        let Some(rs) = self.cursor.as_mut() else {
            return Ok(0);
        };
        let mut n = 0;
        while n < max_rows {
            match rs.next() {
                Some(Ok(row)) => {
                    out.push(rows::contents_row(&row)?);
                    n += 1;
                }
                Some(Err(e)) => {
                    self.cursor = None;
                    return Err(map_error(&e));
                }
                None => {
                    self.cursor = None;
                    break;
                }
            }
        }
        Ok(n)
    }

    fn end_session(&mut self) -> Result<(), SourceError> {
        self.enter_home()?;
        self.end_logminer()
    }

    fn snapshot_chunk(
        &mut self,
        table: &TableName,
        as_of_scn: Scn,
        after_key: Option<&[String]>,
        limit: usize,
    ) -> Result<SnapshotChunk, SourceError> {
        let meta = self.snapshot_meta(table)?;
        check_after_key(table, &meta.key, after_key)?;
        self.enter_pdb()?;
        let read = sql::SnapshotRead {
            owner: &table.owner,
            table: &table.table,
            columns: &meta.columns,
            key: &meta.key,
            after_key,
            limit,
            as_of_scn,
            extent: None,
        };
        let Some(extents) = &meta.extents else {
            let rows = self.read_chunk(table, &meta, &read)?;
            return chunk_from_rows(&meta.columns, &meta.key, rows, limit);
        };
        // One extent per query, continuing into the next extents until the
        // chunk is full.
        let (first, inside) = extents::resume_at(
            extents,
            after_key.and_then(|k| k.first().map(String::as_str)),
        )?;
        let mut rows = Vec::new();
        for (i, extent) in extents.iter().enumerate().skip(first) {
            let left = limit.saturating_sub(rows.len());
            if left == 0 {
                break;
            }
            let read = sql::SnapshotRead {
                after_key: if i == first && inside {
                    after_key
                } else {
                    None
                },
                limit: left,
                extent: Some(extent),
                ..read
            };
            rows.extend(self.read_chunk(table, &meta, &read)?);
        }
        chunk_from_rows(&meta.columns, &meta.key, rows, limit)
    }

    fn snapshot_key_after(
        &mut self,
        table: &TableName,
        as_of_scn: Scn,
        after_key: Option<&[String]>,
        n: usize,
    ) -> Result<Option<Vec<String>>, SourceError> {
        let meta = self.snapshot_meta(table)?;
        let sql::SnapshotKey::Columns(key) = &meta.key else {
            // By ROWID: extents, not an index, bound the reads.
            return Ok(self
                .snapshot_chunk(table, as_of_scn, after_key, n)?
                .last_key);
        };
        check_after_key(table, &meta.key, after_key)?;
        self.enter_pdb()?;
        let read = sql::SnapshotRead {
            owner: &table.owner,
            table: &table.table,
            columns: key,
            key: &meta.key,
            after_key,
            limit: n,
            as_of_scn,
            extent: None,
        };
        let bound = sql::snapshot_key_after(&read, n).ok_or_else(|| {
            SourceError::Unsupported(format!(
                "cannot snapshot {table}: a name contains a double quote and cannot be quoted safely"
            ))
        })?;
        let rows = self.query_text(&bound)?;
        Ok(rows.into_iter().next().map(|row| {
            row.into_iter()
                .take(key.len())
                .map(Option::unwrap_or_default)
                .collect()
        }))
    }

    fn another_session(&self) -> Result<Option<Box<dyn RedoSource>>, SourceError> {
        let mut other = Self::connect(self.options.clone())?;
        other.pdb.clone_from(&self.pdb);
        Ok(Some(Box::new(other)))
    }

    fn session_memory(
        &mut self,
    ) -> Result<Option<crate::engine::port::SessionMemory>, SourceError> {
        let pga = match self.query_plain(sql::SESSION_MEMORY) {
            Ok(rows) => rows::session_memory(&rows)?,
            // Without SELECT on V$PROCESS or V$SESSION the figure is not there.
            Err(e) if matches!(e.ora_code(), Some(942 | 1031)) => None,
            Err(e) => return Err(e),
        };
        let Some(mut pga) = pga else { return Ok(None) };
        pga.uga = match self.query_plain(sql::SESSION_UGA) {
            Ok(rows) => rows::session_uga(&rows)?,
            Err(e) if matches!(e.ora_code(), Some(942 | 1031)) => None,
            Err(e) => return Err(e),
        };
        Ok(Some(pga))
    }

    fn recent_log_switches(
        &mut self,
    ) -> Result<Option<Vec<crate::engine::port::RecentSwitches>>, SourceError> {
        match self.query_plain(sql::RECENT_LOG_SWITCHES) {
            Ok(rows) => rows::recent_switches(&rows).map(Some),
            // Without SELECT on V$LOG_HISTORY the rate is not there.
            Err(e) if matches!(e.ora_code(), Some(942 | 1031)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn segment_ids(&mut self, table: &TableName) -> Result<Option<Vec<u64>>, SourceError> {
        self.enter_pdb()?;
        let rows = self.query_text(&BoundSql {
            text: sql::TABLE_SEGMENT_IDS.to_string(),
            binds: table_binds(table),
        })?;
        extents::segment_ids_from_rows(&rows).map(Some)
    }

    /// A truncated, moved or exchanged partition has new extents (new
    /// data object ids in their ROWIDs), a new interval partition extents of
    /// its own: the next read asks `DBA_EXTENTS` again.
    fn forget_segments(&mut self, table: &TableName) {
        self.snapshot_meta.remove(table);
    }

    fn reconnect(&mut self) -> Result<(), SourceError> {
        self.cursor = None;
        self.added_logs.clear();
        let (conn, major) = open(&self.options)?;
        let old = std::mem::replace(&mut self.conn, conn);
        // The old session may already be gone; closing it is best effort.
        let _ = old.close();
        self.major_version = major;
        self.current = self.home.as_ref().map(|h| h.name.clone());
        Ok(())
    }
}

impl OracleSource {
    /// The contents query as this session sends it: no container filter
    /// when mining inside a PDB, where the view holds only that PDB's redo.
    fn contents_bound(&self, query: &ContentsQuery) -> BoundSql {
        if self.per_pdb_mining() {
            let query = ContentsQuery {
                pdb: None,
                ..query.clone()
            };
            return sql::contents_query(&query, self.major_version, &self.oracle_schemas);
        }
        sql::contents_query(query, self.major_version, &self.oracle_schemas)
    }

    /// Runs one snapshot read and returns its rows as text (ROWID last
    /// with a ROWID key).
    fn read_chunk(
        &self,
        table: &TableName,
        meta: &SnapshotMeta,
        read: &sql::SnapshotRead<'_>,
    ) -> Result<Vec<Vec<Option<String>>>, SourceError> {
        let limit = read.limit;
        let bound = sql::snapshot_chunk(read, self.major_version).ok_or_else(|| {
            SourceError::Unsupported(format!(
                "cannot snapshot {table}: a name contains a double quote and cannot be quoted safely"
            ))
        })?;
        let fetch = u32::try_from(limit.clamp(1, SNAPSHOT_FETCH_SIZE as usize))
            .unwrap_or(SNAPSHOT_FETCH_SIZE);
        let stmt = self
            .conn
            .statement(&bound.text)
            .prefetch_rows(fetch)
            .fetch_array_size(fetch)
            .build()
            .map_err(|e| map_error(&e))?;
        let rs = with_binds(&bound.binds, |b| stmt.into_result_set_named::<Row>(b))
            .map_err(|e| map_error(&e))?;
        let mut out = Vec::new();
        for row in rs {
            let row = row.map_err(|e| map_error(&e))?;
            let mut values = Vec::with_capacity(row.sql_values().len());
            for (i, col) in meta.columns.iter().enumerate() {
                values.push(if col.kind == ValueKind::Blob {
                    row.get::<usize, Option<Vec<u8>>>(i)
                        .map_err(|e| map_error(&e))?
                        .map(|b| crate::engine::event::hex_lower(&b))
                } else {
                    row.text(i)?
                });
            }
            if matches!(meta.key, SnapshotKey::RowId) {
                values.push(row.text(meta.columns.len())?);
            }
            out.push(values);
        }
        Ok(out)
    }
}

/// The `:owner` and `:table_name` binds of the per-table dictionary queries.
fn table_binds(table: &TableName) -> Vec<(String, BindValue)> {
    vec![
        ("owner".to_string(), BindValue::Text(table.owner.clone())),
        (
            "table_name".to_string(),
            BindValue::Text(table.table.clone()),
        ),
    ]
}

/// The names to try for `file`: itself first, then the other readable
/// members of its online group (an archived log has no alternative).
fn member_candidates(file: &str, online_members: &HashMap<String, Vec<String>>) -> Vec<String> {
    let mut candidates = vec![file.to_string()];
    if let Some(members) = online_members.get(file) {
        candidates.extend(members.iter().filter(|m| *m != file).cloned());
    }
    candidates
}

/// What starting a LogMiner session sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionPlan {
    /// Files to add (the first with `NEW`), or `None` to keep the files
    /// already added.
    pub add: Option<Vec<String>>,
    pub start: BoundSql,
}

/// Decides the statements of a session start. In a PDB (per-PDB mining,
/// 19c+) `START_LOGMNR` gets the SCN range alone: Oracle picks the logs
/// itself and refuses `ADD_LOGFILE` there. Elsewhere the files stay added
/// until `END_LOGMNR`, so a new window over the same files sends only
/// `START_LOGMNR` with the new range.
pub fn session_plan(
    request: &SessionRequest,
    per_pdb: bool,
    added: &[String],
) -> Result<SessionPlan, SourceError> {
    let start = start_logmnr_bound(request);
    if per_pdb {
        return Ok(SessionPlan { add: None, start });
    }
    if request.log_files.is_empty() && !request.options.continuous_mine {
        return Err(SourceError::Invalid(
            "a LogMiner session needs at least one log file; the planner found none for the window"
                .into(),
        ));
    }
    let add = (added != request.log_files.as_slice()).then(|| request.log_files.clone());
    Ok(SessionPlan { add, start })
}

/// The archived logs of one destination above an SCN, with their binds.
pub fn archived_logs_bound(from_scn: Scn, dest_id: u32) -> BoundSql {
    BoundSql {
        text: sql::ARCHIVED_LOGS_FROM.to_string(),
        binds: vec![
            ("dest_id".to_string(), BindValue::Number(u64::from(dest_id))),
            ("from_scn".to_string(), BindValue::Number(from_scn)),
        ],
    }
}

/// `START_LOGMNR` with its SCN binds.
pub fn start_logmnr_bound(request: &SessionRequest) -> BoundSql {
    BoundSql {
        text: sql::start_logmnr(&request.options),
        binds: vec![
            (
                "start_scn".to_string(),
                BindValue::Number(request.start_scn),
            ),
            ("end_scn".to_string(), BindValue::Number(request.end_scn)),
        ],
    }
}

#[cfg(test)]
mod tests;
