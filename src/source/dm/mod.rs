//! The real Dameng DM8 backend: `RedoSource` and `Catalog` over the
//! pure-Rust `dm-pure` driver, which speaks DM's wire protocol itself (no
//! client library to install or load).
//!
//! As for Oracle, the layer is thin: statement texts live in [`sql`], row
//! mappings in [`rows`], error mapping in [`error`], each tested without a
//! server; this module only runs statements and hands text rows on.
//!
//! DM8 mines archive files only (the one still being written included),
//! and its SCN is an LSN: a snapshot chunk is a flashback read `AS OF SCN`
//! that LSN ([`snapshot`]).

pub mod catalog;
pub mod error;
pub mod export;
pub mod rows;
mod snapshot;
pub mod sql;
pub mod url;

use std::collections::VecDeque;
use std::time::Duration;

use dm_pure::{ClientConfig, DmClient, ExecuteResult, Param};

use crate::engine::row::{LogMinerRow, Scn};
use crate::source::oracle::sql::{BindValue, BoundSql};
use crate::source::oracle::url::Password;
use crate::source::{
    ContentsQuery, Dialect, Incarnation, LogInventory, OpenTransaction, RedoSource, ScnTime,
    SessionRequest, SnapshotChunk, SourceError, TableName,
};

pub use url::{DmSpec, DmUrlError};

use rows::{ArchFile, TextRow};

/// How long a connect, read or write may take before the connection is
/// taken as dropped.
const TIMEOUT: Duration = Duration::from_secs(30);

/// Shows in DM8's session views so DBAs can tell cdcctl's sessions apart.
const APP_NAME: &str = "cdcctl";

/// How to reach a DM8 database.
#[derive(Debug, Clone)]
pub struct DmOptions {
    pub spec: DmSpec,
    pub password: Option<Password>,
}

impl DmOptions {
    /// Parses the address; the password comes from the caller.
    pub fn new(url: &str, password: Option<Password>) -> Result<Self, SourceError> {
        let spec = DmSpec::parse(url).map_err(|e| SourceError::Invalid(e.to_string()))?;
        Ok(DmOptions { spec, password })
    }

    /// Fills a missing password from `CDCCTL_PASSWORD`, then from `prompt`
    /// (called with the user name): the same rule as `oracle://`.
    pub fn resolve_password(mut self, prompt: impl FnOnce(&str) -> Option<Password>) -> Self {
        if self.password.is_none() {
            self.password = Password::from_env().or_else(|| prompt(&self.spec.user));
        }
        self
    }
}

/// The rows a statement returned: column names and text rows.
#[derive(Debug, Clone, Default)]
pub struct Rows {
    pub columns: Vec<String>,
    pub rows: Vec<TextRow>,
}

/// A connected DM8 database.
pub struct DmSource {
    options: DmOptions,
    client: DmClient,
    /// Rows of the open contents query not yet handed out. The driver
    /// fetches a result whole; every contents query covers one bounded
    /// window, which bounds this too.
    pending: VecDeque<LogMinerRow>,
    /// The archive files of the running LogMiner session, for each row's
    /// sequence.
    session_files: Vec<ArchFile>,
    /// Files from the last inventory, by path, to find a requested file's
    /// LSN range.
    known_files: Vec<ArchFile>,
    logminer_started: bool,
    /// `DBMS_LOGMNR` was found created once; not asked again every window.
    package_seen: bool,
    /// What the snapshot reads of each table, looked up at its first chunk.
    snapshot_meta: std::collections::BTreeMap<TableName, snapshot::DmSnapshotMeta>,
}

impl std::fmt::Debug for DmSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DmSource")
            .field("spec", &self.options.spec)
            .finish_non_exhaustive()
    }
}

fn open(options: &DmOptions) -> Result<DmClient, SourceError> {
    let spec = &options.spec;
    let Some(password) = &options.password else {
        return Err(SourceError::NoPassword(spec.user.clone()));
    };
    let mut client = DmClient::with_config(ClientConfig {
        host: spec.host.clone(),
        port: spec.port,
        user: spec.user.clone(),
        password: password.expose().to_string(),
        app_name: APP_NAME.into(),
        timeout: TIMEOUT,
        // A silent reconnect would lose the LogMiner session's files;
        // capture reconnects itself and starts the session again.
        auto_reconnect: false,
        ..ClientConfig::default()
    });
    client
        .connect()
        .map_err(|e| error::map_error(&e, &spec.address(), true))?;
    if let Some(schema) = &spec.schema {
        client
            .execute(&sql::set_schema(schema), &[])
            .map_err(|e| error::map_error(&e, &spec.address(), true))?;
    }
    Ok(client)
}

fn params(binds: &[(String, BindValue)]) -> Result<Vec<Param>, SourceError> {
    binds
        .iter()
        .map(|(name, value)| match value {
            BindValue::Text(t) => Ok(Param::Str(t.clone())),
            BindValue::Number(n) => i64::try_from(*n).map(Param::Int).map_err(|_| {
                SourceError::Invalid(format!("bind {name} = {n} is beyond DM8's BIGINT"))
            }),
        })
        .collect()
}

impl DmSource {
    /// Connects. Without a server at the address this fails at once with
    /// DM8's network error (-6852), transient and unreachable.
    pub fn connect(options: DmOptions) -> Result<Self, SourceError> {
        let client = open(&options)?;
        Ok(DmSource {
            options,
            client,
            pending: VecDeque::new(),
            session_files: Vec::new(),
            known_files: Vec::new(),
            logminer_started: false,
            package_seen: false,
            snapshot_meta: std::collections::BTreeMap::new(),
        })
    }

    /// Parses `url`, fills the password (`CDCCTL_PASSWORD`, else `prompt`)
    /// and connects.
    pub fn open_url(
        url: &str,
        prompt: impl FnOnce(&str) -> Option<Password>,
    ) -> Result<Self, SourceError> {
        Self::connect(DmOptions::new(url, None)?.resolve_password(prompt))
    }

    /// The address connected to.
    pub fn spec(&self) -> &DmSpec {
        &self.options.spec
    }

    fn map(&self, e: &dm_pure::DmError) -> SourceError {
        error::map_error(e, &self.options.spec.address(), false)
    }

    /// Runs a statement and returns its rows as text.
    pub fn query(&mut self, bound: &BoundSql) -> Result<Rows, SourceError> {
        let params = params(&bound.binds)?;
        match self.client.execute(&bound.text, &params) {
            Ok(ExecuteResult::Query { columns, rows }) => Ok(Rows {
                columns: columns.into_iter().map(|c| c.name).collect(),
                rows: rows
                    .iter()
                    .map(|r| r.iter().map(rows::value_text).collect())
                    .collect(),
            }),
            Ok(_) => Ok(Rows::default()),
            Err(e) => Err(self.map(&e)),
        }
    }

    fn query_plain(&mut self, text: &str) -> Result<Vec<TextRow>, SourceError> {
        Ok(self
            .query(&BoundSql {
                text: text.to_string(),
                binds: Vec::new(),
            })?
            .rows)
    }

    fn execute(&mut self, text: &str) -> Result<(), SourceError> {
        self.client
            .execute(text, &[])
            .map(|_| ())
            .map_err(|e| self.map(&e))
    }

    fn arch_files(&mut self) -> Result<Vec<ArchFile>, SourceError> {
        let result = self.query(&BoundSql {
            text: sql::ARCH_FILES.to_string(),
            binds: Vec::new(),
        })?;
        let files = rows::arch_files(&result.columns, &result.rows)?;
        self.known_files = files.clone();
        Ok(files)
    }

    /// `SF_CHECK_SYSTEM_PACKAGE('DBMS_LOGMNR')`: `None` when it cannot be read.
    fn logmnr_installed(&mut self) -> Result<Option<bool>, SourceError> {
        match self.query_plain(sql::LOGMNR_PACKAGE) {
            Ok(rows) => Ok(rows
                .first()
                .and_then(|r| r.first().cloned().flatten())
                .map(|v| v.trim() == "1")),
            Err(e) if error::is_missing_fact(&e) => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn end_logminer(&mut self) -> Result<(), SourceError> {
        self.pending.clear();
        self.session_files.clear();
        if !self.logminer_started {
            return Ok(());
        }
        self.logminer_started = false;
        self.execute(sql::END_LOGMNR)
    }

    /// Where capture is, from `V$RLOG`.
    fn lsn(&mut self) -> Result<(Scn, Scn, chrono::NaiveDateTime), SourceError> {
        let rows = self.query_plain(sql::CURRENT_LSN)?;
        let row = rows
            .first()
            .ok_or_else(|| SourceError::Invalid("V$RLOG returned no row".into()))?;
        rows::current_lsn(row)
    }
}

impl RedoSource for DmSource {
    fn describe(&self) -> String {
        self.options.spec.to_string()
    }

    fn dialect(&self) -> Dialect {
        Dialect::Dm
    }

    fn current_scn(&mut self) -> Result<ScnTime, SourceError> {
        let (scn, _, time) = self.lsn()?;
        Ok(ScnTime { scn, time })
    }

    fn log_inventory(&mut self) -> Result<LogInventory, SourceError> {
        let files = self.arch_files()?;
        let (cur, ckpt, _) = self.lsn()?;
        let dests = match self.query_plain(sql::ARCH_DESTS) {
            Ok(rows) => rows::arch_dests(&rows)?,
            Err(e) if error::is_missing_fact(&e) => Vec::new(),
            Err(e) => return Err(e),
        };
        Ok(rows::inventory(&files, cur, ckpt, &dests))
    }

    /// DM8 has no RESETLOGS incarnations cdcctl can read: one fixed
    /// incarnation, so a checkpoint never mistakes DM8 for another history.
    fn incarnation(&mut self) -> Result<Incarnation, SourceError> {
        Ok(Incarnation {
            resetlogs_change: 0,
            resetlogs_time: chrono::NaiveDateTime::default(),
        })
    }

    fn open_transactions(&mut self) -> Result<Vec<OpenTransaction>, SourceError> {
        let result = self.query(&BoundSql {
            text: sql::OPEN_TRANSACTIONS.to_string(),
            binds: Vec::new(),
        })?;
        rows::transactions(&result.columns, &result.rows)
    }

    /// DM8 allows one LogMiner per session, so every window ends the last
    /// one, adds its files again and starts anew.
    fn start_session(&mut self, request: &SessionRequest) -> Result<(), SourceError> {
        let options = sql::start_options(&request.options).ok_or_else(|| {
            SourceError::Unsupported(
                "DM8's DBMS_LOGMNR has no CONTINUOUS_MINE: cdcctl adds the archive files itself"
                    .into(),
            )
        })?;
        if request.log_files.is_empty() {
            return Err(SourceError::Invalid(
                "a LogMiner session needs at least one archive file; the planner found none for the window"
                    .into(),
            ));
        }
        // `ADD_LOGFILE(..., NEW)` drops the old list anyway, so a database
        // error ending the last session is not a reason to stop; a dropped
        // connection is.
        match self.end_logminer() {
            Err(e @ SourceError::Dm { .. }) if e.is_unreachable() => return Err(e),
            Err(SourceError::Dm { .. }) | Ok(()) => {}
            Err(e) => return Err(e),
        }
        if !self.package_seen {
            match self.logmnr_installed()? {
                Some(false) => {
                    return Err(SourceError::Dm {
                        code: error::NO_PACKAGE_MEMBER,
                        message: error::MISSING_PACKAGE_MESSAGE.into(),
                    })
                }
                Some(true) => self.package_seen = true,
                None => {}
            }
        }
        let mut files = Vec::with_capacity(request.log_files.len());
        for (i, path) in request.log_files.iter().enumerate() {
            let text = sql::add_logfile(path, i == 0).ok_or_else(|| {
                SourceError::Invalid(format!("archive file name `{path}` holds a NUL"))
            })?;
            self.execute(&text)?;
            self.logminer_started = true;
            if let Some(f) = self.known_files.iter().find(|f| &f.path == path) {
                files.push(f.clone());
            }
        }
        self.execute(&sql::start_logmnr(
            request.start_scn,
            request.end_scn,
            options,
        ))?;
        self.session_files = files;
        Ok(())
    }

    fn query_contents(&mut self, query: &ContentsQuery) -> Result<(), SourceError> {
        self.pending.clear();
        let result = self.query(&sql::contents_query(query))?;
        for row in &result.rows {
            self.pending
                .push_back(rows::contents_row(row, &self.session_files)?);
        }
        Ok(())
    }

    fn fetch(&mut self, max_rows: usize, out: &mut Vec<LogMinerRow>) -> Result<usize, SourceError> {
        let n = max_rows.min(self.pending.len());
        out.extend(self.pending.drain(..n));
        Ok(n)
    }

    fn end_session(&mut self) -> Result<(), SourceError> {
        self.end_logminer()
    }

    fn snapshot_chunk(
        &mut self,
        table: &TableName,
        as_of_scn: Scn,
        after_key: Option<&[String]>,
        limit: usize,
    ) -> Result<SnapshotChunk, SourceError> {
        let meta = match self.snapshot_meta.get(table) {
            Some(m) => m.clone(),
            None => {
                let facts = self.table_facts(table)?;
                let m = snapshot::meta_from_facts(table, &facts)?;
                self.snapshot_meta.insert(table.clone(), m.clone());
                m
            }
        };
        let want = meta.key.len().max(1);
        if let Some(k) = after_key.filter(|k| k.len() != want) {
            return Err(SourceError::Invalid(format!(
                "the snapshot of {table} resumes after a key of {} values, but its key has \
                 {want}; restart the snapshot of this table",
                k.len()
            )));
        }
        let read = sql::DmSnapshotRead {
            owner: &table.owner,
            table: &table.table,
            columns: &meta.columns,
            key: &meta.key,
            after_key,
            limit,
            as_of_lsn: as_of_scn,
        };
        let bound = sql::snapshot_chunk(&read).ok_or_else(|| {
            SourceError::Invalid(format!("{table}: a name holds a double quote or a NUL"))
        })?;
        let rows = self.query(&bound)?.rows;
        snapshot::chunk_from_rows(&meta, rows, limit)
    }

    fn forget_segments(&mut self, table: &TableName) {
        self.snapshot_meta.remove(table);
    }

    fn another_session(&self) -> Result<Option<Box<dyn RedoSource>>, SourceError> {
        Ok(Some(Box::new(Self::connect(self.options.clone())?)))
    }

    fn reconnect(&mut self) -> Result<(), SourceError> {
        self.pending.clear();
        self.session_files.clear();
        self.logminer_started = false;
        let client = open(&self.options)?;
        let mut old = std::mem::replace(&mut self.client, client);
        // The old session may already be gone; closing it is best effort.
        old.close();
        Ok(())
    }
}

#[cfg(test)]
mod tests;
