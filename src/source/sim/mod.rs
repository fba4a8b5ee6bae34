//! The built-in Oracle simulator behind `--source sim[:SCENARIO]`.
//!
//! `Sim` is an in-process Oracle instance built from a [`Scenario`]: it
//! answers catalog questions like the dictionary views would, generates a
//! seeded workload into redo logs that switch and get archived, runs LogMiner
//! sessions over them with Oracle's own errors, serves `AS OF SCN` snapshot
//! reads, raises scheduled faults, and keeps the ground truth of every
//! committed change so tests can compare what a capture engine produced.

pub mod apply;
pub mod charset;
pub mod dm;
pub mod facts;
pub mod logminer;
pub mod model;
pub mod rng;
pub mod scenario;
pub mod snapshot_read;
pub mod sql_redo;
pub mod threaded;
pub mod value;

use std::time::Instant;

use chrono::Timelike;

use crate::engine::event::CapturedEvent;
use crate::engine::row::{LogMinerRow, Scn};
use crate::source::{
    ArchivedLog, Catalog, ContentsQuery, Incarnation, InstanceFacts, LogInventory, OpenTransaction,
    RedoSource, RedoThread, ScnTime, SessionFacts, SessionRequest, SessionTransaction,
    SnapshotChunk, SourceError, TableFacts, TableName, TablePattern,
};

pub use logminer::{plan_logs, CSF_PIECE_BYTES};
pub use model::Model;
pub use scenario::{Scenario, ScenarioError, BUILTINS};

use logminer::{Connection, Pending, Session};
use snapshot_read::ReadSession;

/// How database time advances.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// Database time follows the wall clock from the moment the sim starts.
    Real,
    /// Each `current_scn` call advances database time by `step_ms`, as fast
    /// as the CPU allows (tests, benchmarks, replays).
    Virtual { step_ms: u64 },
}

impl Default for Clock {
    fn default() -> Self {
        Clock::Virtual { step_ms: 1000 }
    }
}

impl From<ScenarioError> for SourceError {
    fn from(e: ScenarioError) -> Self {
        match e {
            ScenarioError::UnknownBuiltin { .. } | ScenarioError::Io { .. } => {
                SourceError::NotFound(e.to_string())
            }
            _ => SourceError::Invalid(e.to_string()),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Link {
    Up,
    /// ORA-03113 was raised; every call fails until `reconnect`.
    Down,
}

/// One table's committed rows at an SCN (see [`Sim::table_contents_at`]).
#[derive(Debug, Clone, PartialEq)]
pub struct TableContents {
    pub name: TableName,
    pub columns: Vec<String>,
    pub key_columns: Vec<String>,
    /// Key texts and column values (None = NULL), in key order.
    #[allow(clippy::type_complexity)]
    pub rows: Vec<(Vec<String>, Vec<Option<String>>)>,
}

/// A simulated Oracle instance.
pub struct Sim {
    model: Model,
    clock: Clock,
    base_ms: i64,
    virtual_ms: i64,
    wall_start: Instant,
    session: Option<Session>,
    pending: Option<Pending>,
    link: Link,
    privileges: Vec<String>,
    roles: Vec<String>,
    /// The container connected to; LogMiner runs there.
    container: String,
    /// The PDB table reads and snapshots run in (`Catalog::set_pdb`).
    pdb: Option<String>,
    /// Statements a client would have sent so far (see [`Sim::statements_sent`]).
    statements: u64,
    /// Files added to the LogMiner session since the last END_LOGMNR.
    added_logs: Vec<String>,
    /// The CURRENT_SCN the last read returned.
    last_read_scn: Scn,
    /// What DBA scripts applied ([`apply`]) added to the dictionary.
    dba: apply::State,
}

impl Sim {
    /// How far [`Self::fast_forward_to_scn`] runs the workload at most.
    pub const MAX_FAST_FORWARD: Scn = 2_000_000;

    /// Builds a simulator from a built-in name (`demo`, `noarchivelog`, ...)
    /// or a scenario file path, with the virtual clock.
    pub fn from_spec(spec: &str) -> Result<Sim, ScenarioError> {
        Ok(Sim::new(Scenario::load(spec)?, Clock::default()))
    }

    /// Builds a simulator from a parsed scenario; the warm-up workload is
    /// generated before this returns.
    pub fn new(scenario: Scenario, clock: Clock) -> Sim {
        let warmup_ms = scenario.warmup_s as i64 * 1000;
        let mut model = Model::new(scenario);
        model.advance_to(warmup_ms);
        let major = model.version_major;
        let c = &model.scenario.connection;
        let dm = model.scenario.is_dm();
        let privileges = c.privileges.clone().unwrap_or_else(|| {
            if dm {
                dm::default_privileges()
            } else {
                facts::default_privileges(major)
            }
        });
        let roles = if c.privileges.is_none() && c.roles.is_empty() && !dm {
            facts::default_roles(major)
        } else {
            c.roles.clone()
        };
        let container = c.container.clone().unwrap_or_else(|| {
            if model.scenario.instance.cdb {
                "CDB$ROOT".into()
            } else {
                model.scenario.instance.db_name.clone()
            }
        });
        Sim {
            model,
            clock,
            base_ms: warmup_ms,
            virtual_ms: warmup_ms,
            wall_start: Instant::now(),
            session: None,
            pending: None,
            link: Link::Up,
            privileges,
            roles,
            container,
            pdb: None,
            statements: 0,
            added_logs: Vec::new(),
            last_read_scn: 0,
            dba: apply::State::default(),
        }
    }

    /// How many SQL statements and PL/SQL calls a client would have sent to
    /// get the answers given so far, counted as the Oracle backend sends
    /// them: one per view query, one per `ADD_LOGFILE` (only when the file
    /// set changes), one per `START_LOGMNR`, `END_LOGMNR` and contents query.
    /// Fetches of an open query are not statements.
    pub fn statements_sent(&self) -> u64 {
        self.statements
    }

    fn sent(&mut self, n: u64) {
        self.statements += n;
    }

    /// Opens the simulator a `--source` value names: `sim` (the demo),
    /// `sim:NAME` or `sim:PATH.toml`, with the real clock; a `?clock=virtual`
    /// suffix runs database time as fast as the engine polls instead.
    /// `None` when the value does not name the simulator.
    pub fn from_source(source: &str) -> Option<Result<Sim, ScenarioError>> {
        let rest = source.trim().strip_prefix("sim")?;
        let spec = match rest.strip_prefix(':') {
            Some(spec) => spec,
            None if rest.is_empty() || rest.starts_with('?') => rest,
            None => return None,
        };
        let (spec, clock) = match spec.rsplit_once("?clock=") {
            Some((s, "virtual")) => (s, Clock::default()),
            Some((s, "real")) => (s, Clock::Real),
            Some((_, other)) => {
                return Some(Err(ScenarioError::Invalid {
                    origin: "--source".into(),
                    message: format!("clock={other} is not a clock (allowed: real, virtual)"),
                }))
            }
            None => (spec, Clock::Real),
        };
        let spec = if spec.is_empty() { "demo" } else { spec };
        Some(Sim::from_spec(spec).map(|s| s.with_clock(clock)))
    }

    /// The `SRC_CON_NAME` to filter on: the first PDB when connected to the
    /// root of a CDB, `None` otherwise.
    pub fn default_pdb(&self) -> Option<String> {
        let i = &self.model.scenario.instance;
        (i.cdb && self.container.eq_ignore_ascii_case("CDB$ROOT"))
            .then(|| i.pdbs.first().cloned())
            .flatten()
    }

    /// Table reads and snapshots in [`Self::default_pdb`], as `run` and
    /// `tail` do for a CDB with one PDB: from the root alone no PDB table
    /// is visible.
    pub fn with_default_pdb(mut self) -> Sim {
        if let Some(pdb) = self.default_pdb() {
            self.pdb = Some(pdb);
        }
        self
    }

    /// `source.db` for rows without SRC_CON_NAME (non-CDB).
    pub fn db_name(&self) -> &str {
        &self.model.scenario.instance.db_name
    }

    pub fn with_clock(mut self, clock: Clock) -> Sim {
        self.clock = clock;
        self.wall_start = Instant::now();
        self
    }

    pub fn scenario(&self) -> &Scenario {
        &self.model.scenario
    }

    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Runs a DBA's SQL*Plus script against the instance (see [`apply`]):
    /// the statements it models change what the catalog reads next.
    pub fn apply_script(&mut self, script: &str) -> apply::ApplyReport {
        apply::apply_script(self, script)
    }

    /// Ground truth: every committed change (and DDL) in commit order.
    pub fn truth(&self) -> impl Iterator<Item = &CapturedEvent> {
        self.model.truth.iter().map(|(_, e)| e)
    }

    /// The truth a LogMiner session over `(from_scn, to_scn]` can show in
    /// full: transactions that started after `from_scn` and committed at or
    /// before `to_scn`.
    pub fn truth_between(
        &self,
        from_scn: Scn,
        to_scn: Scn,
    ) -> impl Iterator<Item = &CapturedEvent> {
        self.model
            .truth
            .iter()
            .filter(move |(start, e)| *start > from_scn && e.source().commit_scn <= to_scn)
            .map(|(_, e)| e)
    }

    /// Ground truth of table contents: every table's rows as committed at
    /// `scn`, in key order, the workload run on until the SCN gets there.
    /// `None` when `scn` is older than the undo the simulator keeps, which
    /// is what an `AS OF` read of it would need. Dropped tables are left
    /// out; rows partition DDL removed by then are in
    /// [`Self::removed_by_ddl`].
    pub fn table_contents_at(&mut self, scn: Scn) -> Option<Vec<TableContents>> {
        self.advance_to_scn(scn);
        let m = &self.model;
        let mut out = Vec::new();
        for (t, tb) in m.tables.iter().enumerate() {
            if tb.dropped {
                continue;
            }
            if scn < m.undo_floor(t) {
                return None;
            }
            // In the forms the database's own reads and stream give.
            let dm = m.scenario.is_dm();
            let rows = m
                .snapshot_rows(t, scn, None, usize::MAX)
                .into_iter()
                .map(|(k, v)| {
                    let texts = v
                        .iter()
                        .zip(&tb.columns)
                        .map(|(x, c)| {
                            if dm {
                                dm::snapshot_text(x, &c.ty)
                            } else {
                                x.snapshot_text()
                            }
                        })
                        .collect();
                    (m.key_texts(t, k, &v), texts)
                })
                .collect();
            out.push(TableContents {
                name: tb.name.clone(),
                columns: tb.columns.iter().map(|c| c.name.clone()).collect(),
                key_columns: tb.pk.iter().map(|&i| tb.columns[i].name.clone()).collect(),
                rows,
            });
        }
        Some(out)
    }

    /// Rows partition DDL (TRUNCATE, DROP, EXCHANGE PARTITION) removed at
    /// or below `scn`: no row change reaches the redo for them, so a
    /// capture's per-key state keeps them unless it acts on the DDL.
    pub fn removed_by_ddl(&self, scn: Scn) -> Vec<(TableName, Scn, Vec<String>)> {
        self.model
            .ddl_removed
            .iter()
            .filter(|r| r.scn <= scn)
            .filter_map(|r| {
                let tb = self.model.tables.get(r.table)?;
                Some((tb.name.clone(), r.scn, r.key.clone()))
            })
            .collect()
    }

    /// Takes the ground truth recorded so far, each event with the START SCN
    /// of its transaction, in commit order.
    pub fn drain_truth_entries(&mut self) -> Vec<(Scn, CapturedEvent)> {
        self.model.truth.drain(..).collect()
    }

    /// Takes the ground truth recorded so far.
    pub fn drain_truth(&mut self) -> Vec<CapturedEvent> {
        self.model.truth.drain(..).map(|(_, e)| e).collect()
    }

    /// Records the truth as a capture with `--lob capture` must give it (LOB
    /// and XMLType values whole, a LOB written alone as an UPDATE) instead of
    /// with those values unavailable. Set before the workload runs.
    pub fn set_lob_truth(&mut self, capture: bool) {
        self.model.lob_capture = capture;
    }

    /// On DM8, gives `V$LOGMNR_CONTENTS` rows with DM8's own operation
    /// codes, as an export of the view (`sim contents`) shows them, rather
    /// than read the DM source's way.
    pub fn set_dm_own_codes(&mut self, own: bool) {
        self.model.dm_own_codes = own;
    }

    /// How many truth events to keep (`None`: all; `Some(0)`: record none).
    /// Older ones are dropped and counted, so an interactive sim stays
    /// bounded; those the warm-up recorded beyond the limit go at once.
    pub fn set_truth_limit(&mut self, limit: Option<usize>) {
        self.model.truth_limit = limit;
        if let Some(limit) = limit {
            let over = self.model.truth.len().saturating_sub(limit);
            self.model.truth.drain(..over);
            self.model.truth_dropped += over as u64;
        }
    }

    /// Generates at least `n` more redo records without any engine: the
    /// benchmark hook for rows/s.
    pub fn pregenerate(&mut self, n: u64) -> u64 {
        let before = self.model.rows_generated;
        self.model.generate_records(n);
        self.virtual_ms = self.virtual_ms.max(self.model.now_ms);
        self.model.rows_generated - before
    }

    /// Runs the workload until the SCN reaches `scn`.
    pub fn advance_to_scn(&mut self, scn: Scn) {
        self.model.advance_to_scn(scn);
        self.virtual_ms = self.virtual_ms.max(self.model.now_ms);
    }

    /// Lets the simulated database run on (deterministically, on its own
    /// clock) until its SCN reaches `scn`: a process restarting from a
    /// checkpoint finds the database where it left it, not rebooted at its
    /// warm-up. Stops early if the database sits idle for an hour of its
    /// time, and does not move at all towards an SCN more than
    /// [`Self::MAX_FAST_FORWARD`] ahead (no run of this simulator got there;
    /// a checkpoint claiming it is not this database's). The real clock, if
    /// used, goes on from there.
    pub fn fast_forward_to_scn(&mut self, scn: Scn) {
        const IDLE_STEPS: u32 = 3600;
        if scn > self.model.scn.saturating_add(Self::MAX_FAST_FORWARD) {
            return;
        }
        let mut idle = 0;
        while self.model.scn < scn && idle < IDLE_STEPS {
            let before = self.model.scn;
            let step_to = self.model.now_ms.saturating_add(1000);
            self.model.advance_to(step_to);
            idle = if self.model.scn == before {
                idle + 1
            } else {
                0
            };
        }
        self.virtual_ms = self.virtual_ms.max(self.model.now_ms);
        self.base_ms = self.virtual_ms;
        self.wall_start = Instant::now();
    }

    /// Runs the workload for `ms` more milliseconds of database time.
    pub fn advance_ms(&mut self, ms: i64) {
        self.virtual_ms = self.virtual_ms.max(self.model.now_ms) + ms.max(0);
        self.model.advance_to(self.virtual_ms);
    }

    /// Forces a log switch on every thread (`ALTER SYSTEM ARCHIVE LOG CURRENT`).
    pub fn switch_logs(&mut self) {
        for i in 0..self.model.threads.len() {
            self.model.switch_log(i);
        }
    }

    /// The files a client adds for a session from `start_scn` (one
    /// destination, archives then online logs).
    pub fn plan_logs(&self, start_scn: Scn) -> Vec<String> {
        plan_logs(&self.model, start_scn)
    }

    /// Renders every redo record still held, for tests (no CSF splitting).
    pub fn all_rows(&self) -> Vec<LogMinerRow> {
        if self.model.scenario.is_dm() {
            return self
                .model
                .records
                .iter()
                .filter(|r| dm::shows(&self.model, r))
                .map(|r| dm::render(&self.model, r))
                .collect();
        }
        let s = Session::unrestricted(&self.model);
        self.model
            .records
            .iter()
            .map(|r| s.render(&self.model, r))
            .collect()
    }

    /// Database time as the clock says now (the real clock's wall time),
    /// with all that happened up to it: what a database does between reads.
    pub fn advance_to_now(&mut self) {
        self.tick(false);
    }

    /// Whether database time follows the wall clock.
    pub fn on_real_clock(&self) -> bool {
        matches!(self.clock, Clock::Real)
    }

    fn tick(&mut self, advance: bool) {
        let target = match self.clock {
            Clock::Real => self.base_ms + self.wall_start.elapsed().as_millis() as i64,
            Clock::Virtual { step_ms } => {
                if advance {
                    self.virtual_ms += step_ms as i64;
                }
                self.virtual_ms
            }
        };
        self.model.advance_to(target);
    }

    /// A read of `rows` rows at `rate` rows/s takes time (`read_rows_per_s`
    /// for `AS OF` reads, `mine_rows_per_s` for LogMiner's rows): database
    /// time on the virtual clock, wall time on the real one, as a
    /// database's read would while its workload goes on.
    fn spend_read_time(&mut self, rows: usize, rate: u64) {
        if rate == 0 || rows == 0 {
            return;
        }
        let ms = (rows as u64).saturating_mul(1000) / rate;
        match self.clock {
            Clock::Virtual { .. } => {
                self.virtual_ms += i64::try_from(ms).unwrap_or(i64::MAX / 4);
                self.model.advance_to(self.virtual_ms);
            }
            Clock::Real => std::thread::sleep(std::time::Duration::from_millis(ms)),
        }
    }

    /// Whether a new session gets in now: not while the archiver is
    /// stuck (ORA-00257) or the listener is down (ORA-12541).
    pub(super) fn can_connect(&mut self) -> Result<(), SourceError> {
        if self.model.archiver_stuck {
            return Err(SourceError::oracle(
                257,
                "archiver error. Connect AS SYSDBA only until resolved.",
            ));
        }
        self.tick(false);
        if self
            .model
            .listener_down_until_ms
            .is_some_and(|until| self.model.now_ms < until)
        {
            if self.model.scenario.is_dm() {
                return Err(dm::connection_dropped());
            }
            return Err(SourceError::oracle(12541, "TNS:no listener"));
        }
        Ok(())
    }

    pub(super) fn check_link(&mut self) -> Result<(), SourceError> {
        let dm = self.model.scenario.is_dm();
        if self.model.connection_dropped {
            self.model.connection_dropped = false;
            self.link = Link::Down;
            self.session = None;
            self.pending = None;
            if dm {
                return Err(dm::connection_dropped());
            }
            return Err(SourceError::oracle(
                3113,
                "end-of-file on communication channel",
            ));
        }
        if self.link == Link::Down {
            if dm {
                return Err(dm::connection_dropped());
            }
            return Err(SourceError::oracle(3114, "not connected to ORACLE"));
        }
        Ok(())
    }

    /// The container table reads run in: the PDB chosen with `set_pdb`,
    /// else the one connected to.
    fn table_container(&self) -> &str {
        self.pdb.as_deref().unwrap_or(&self.container)
    }

    fn conn(&self) -> Connection<'_> {
        Connection {
            container: &self.container,
            privileges: &self.privileges,
            roles: &self.roles,
        }
    }

    /// DM8's `[-9801]` for a read below the undo it keeps.
    fn dm_expired(&self, table: &TableName, lsn: Scn) -> SourceError {
        let why = format!(
            "its undo was released (UNDO_RETENTION = {} s)",
            self.model.scenario.instance.undo_retention_s
        );
        dm::flashback_expired(table, lsn, &why)
    }

    fn has_priv(&self, p: &str) -> bool {
        self.privileges.iter().any(|x| x.eq_ignore_ascii_case(p))
    }

    fn has_role(&self, r: &str) -> bool {
        self.roles.iter().any(|x| x.eq_ignore_ascii_case(r))
    }
}

impl Catalog for Sim {
    fn instance(&mut self) -> Result<InstanceFacts, SourceError> {
        self.tick(false);
        self.check_link()?;
        Ok(facts::instance(&self.model))
    }

    fn session(&mut self) -> Result<SessionFacts, SourceError> {
        self.check_link()?;
        Ok(facts::session(
            &self.model,
            &self.privileges,
            &self.roles,
            &self.container,
        ))
    }

    fn tables(&mut self, patterns: &[TablePattern]) -> Result<Vec<TableFacts>, SourceError> {
        self.check_link()?;
        Ok(facts::tables(&self.model, patterns, self.table_container()))
    }

    fn open_transactions(&mut self) -> Result<Vec<OpenTransaction>, SourceError> {
        self.tick(false);
        self.check_link()?;
        if self.model.scenario.is_dm() {
            let open = facts::open_transactions(&self.model);
            return dm::open_transactions(&self.model, open, &self.privileges, &self.roles);
        }
        Ok(facts::open_transactions(&self.model))
    }

    fn transaction_sessions(&mut self) -> Result<Vec<SessionTransaction>, SourceError> {
        RedoSource::session_transactions(self)
    }

    fn log_inventory(&mut self) -> Result<LogInventory, SourceError> {
        self.tick(false);
        self.check_link()?;
        self.sent(5);
        Ok(facts::log_inventory(&self.model))
    }

    /// `ALTER SESSION SET CONTAINER` for table reads, as a common user in
    /// the root does it; LogMiner calls stay in the root.
    fn set_pdb(&mut self, name: Option<&str>) -> Result<(), SourceError> {
        self.check_link()?;
        let Some(name) = name else {
            self.pdb = None;
            return Ok(());
        };
        let inst = &self.model.scenario.instance;
        if !inst.cdb || !inst.pdbs.iter().any(|p| p == name) {
            return Err(SourceError::oracle(
                65011,
                format!("Pluggable database {name} does not exist."),
            ));
        }
        if !self.container.eq_ignore_ascii_case("CDB$ROOT")
            || !(self.has_priv("SET CONTAINER") || self.has_role("DBA"))
        {
            return Err(SourceError::oracle(
                1031,
                format!("insufficient privileges (SET CONTAINER to {name})"),
            ));
        }
        self.pdb = Some(name.to_string());
        Ok(())
    }
}

impl Sim {
    /// The live table named `table` in the session's current container,
    /// whose dictionary alone names it: a flashback read from the root
    /// finds no PDB table (ORA-00942).
    fn visible_table(&self, table: &TableName) -> Option<usize> {
        let cdb = self.model.scenario.instance.cdb;
        let container = self.table_container();
        self.model
            .tables
            .iter()
            .position(|t| !t.dropped && t.name == *table && t.visible_in(cdb, container))
    }
}

impl RedoSource for Sim {
    fn describe(&self) -> String {
        format!("sim:{}", self.model.scenario.name)
    }

    fn dialect(&self) -> crate::source::Dialect {
        self.model.scenario.instance.dialect
    }

    fn current_scn(&mut self) -> Result<ScnTime, SourceError> {
        self.tick(true);
        self.check_link()?;
        self.sent(1);
        // Reading CURRENT_SCN moves the SCN, as on Oracle: on a database that
        // writes no redo, each read returns a higher value than the last.
        // (After new redo the read returns the redo's SCN: a busy database
        // hides the reads among its own increments.)
        if self.last_read_scn >= self.model.scn {
            self.model.scn = self.last_read_scn + 1;
        }
        self.last_read_scn = self.model.scn;
        let t = self.model.now();
        Ok(ScnTime {
            scn: self.model.scn,
            time: t.with_nanosecond(0).unwrap_or(t),
        })
    }

    fn log_inventory(&mut self) -> Result<LogInventory, SourceError> {
        Catalog::log_inventory(self)
    }

    fn open_transactions(&mut self) -> Result<Vec<OpenTransaction>, SourceError> {
        Catalog::open_transactions(self)
    }

    fn session_transactions(&mut self) -> Result<Vec<SessionTransaction>, SourceError> {
        self.tick(false);
        self.check_link()?;
        Ok(facts::session_transactions(&self.model))
    }

    fn incarnation(&mut self) -> Result<Incarnation, SourceError> {
        self.tick(false);
        self.check_link()?;
        Ok(facts::incarnation(&self.model))
    }

    fn redo_threads(&mut self) -> Result<Vec<RedoThread>, SourceError> {
        self.tick(false);
        self.check_link()?;
        self.sent(1);
        Ok(facts::redo_threads(&self.model))
    }

    fn online_inventory(&mut self) -> Result<LogInventory, SourceError> {
        self.tick(false);
        self.check_link()?;
        // RESETLOGS_CHANGE#, V$LOG with V$LOGFILE, V$ARCHIVE_DEST_STATUS.
        self.sent(3);
        let mut inventory = facts::log_inventory(&self.model);
        inventory.archived.clear();
        inventory.threads.clear();
        Ok(inventory)
    }

    fn archived_logs_from(
        &mut self,
        from_scn: Scn,
        dest_id: u32,
    ) -> Result<Vec<ArchivedLog>, SourceError> {
        self.tick(false);
        self.check_link()?;
        self.sent(1);
        let mut archived = facts::log_inventory(&self.model).archived;
        let resetlogs = self.model.scenario.instance.resetlogs_change;
        archived.retain(|a| {
            a.dest_id == dest_id && a.next_change > from_scn && a.resetlogs_change == resetlogs
        });
        Ok(archived)
    }

    fn start_session(&mut self, request: &SessionRequest) -> Result<(), SourceError> {
        self.tick(false);
        self.check_link()?;
        // Files stay added until END_LOGMNR; the Oracle backend adds them
        // again only when the set changes.
        if self.added_logs != request.log_files {
            self.sent(request.log_files.len() as u64);
            self.added_logs = request.log_files.clone();
        }
        self.sent(1);
        let mut session = logminer::start(&self.model, &self.conn(), request)?;
        if let Some(previous) = self.session.take() {
            session.carry_over(previous);
        }
        self.session = Some(session);
        self.pending = None;
        Ok(())
    }

    fn query_contents(&mut self, query: &ContentsQuery) -> Result<(), SourceError> {
        self.tick(false);
        self.check_link()?;
        self.sent(1);
        const NOT_STARTED: &str =
            "dbms_logmnr.start_logmnr() must be invoked before selecting from v$logmnr_contents";
        if self.session.is_none() {
            return Err(SourceError::oracle(1306, NOT_STARTED));
        }
        let readable = if self.model.scenario.is_dm() {
            dm::can_read_contents(&self.privileges, &self.roles)
        } else {
            self.has_priv("SELECT ANY DICTIONARY")
                || self.has_role("SELECT_CATALOG_ROLE")
                || self.has_role("DBA")
        };
        if !readable {
            return Err(SourceError::oracle(
                942,
                "table or view does not exist (V$LOGMNR_CONTENTS)",
            ));
        }
        let Some(session) = self.session.as_mut() else {
            return Err(SourceError::oracle(1306, NOT_STARTED));
        };
        session.check_files(&self.model)?;
        let rows = session.query(&self.model, query);
        self.pending = Some(rows.into());
        Ok(())
    }

    fn fetch(&mut self, max_rows: usize, out: &mut Vec<LogMinerRow>) -> Result<usize, SourceError> {
        self.tick(false);
        self.check_link()?;
        let Some(session) = &self.session else {
            return Err(SourceError::oracle(1306, "dbms_logmnr.start_logmnr() must be invoked before selecting from v$logmnr_contents"));
        };
        session.check_files(&self.model)?;
        let Some(pending) = self.pending.as_mut() else {
            return Ok(0);
        };
        let n = max_rows.min(pending.len());
        out.extend(pending.drain(..n));
        self.spend_read_time(n, self.model.scenario.instance.mine_rows_per_s);
        Ok(n)
    }

    fn end_session(&mut self) -> Result<(), SourceError> {
        self.check_link()?;
        self.sent(1);
        self.added_logs.clear();
        self.session = None;
        self.pending = None;
        Ok(())
    }

    fn snapshot_chunk(
        &mut self,
        table: &TableName,
        as_of_scn: Scn,
        after_key: Option<&[String]>,
        limit: usize,
    ) -> Result<SnapshotChunk, SourceError> {
        let picked = self.pick_rows(ReadSession::Mining, table, as_of_scn, after_key, limit)?;
        picked.wait();
        self.check_after_read(&picked)?;
        Ok(picked.render())
    }

    fn snapshot_key_after(
        &mut self,
        table: &TableName,
        as_of_scn: Scn,
        after_key: Option<&[String]>,
        n: usize,
    ) -> Result<Option<Vec<String>>, SourceError> {
        self.key_after(ReadSession::Mining, table, as_of_scn, after_key, n)
    }

    fn recent_log_switches(
        &mut self,
    ) -> Result<Option<Vec<crate::engine::port::RecentSwitches>>, SourceError> {
        self.check_link()?;
        self.sent(1);
        if self.model.scenario.is_dm() {
            return Ok(None);
        }
        Ok(Some(facts::recent_switches(&self.model)))
    }

    fn segment_ids(&mut self, table: &TableName) -> Result<Option<Vec<u64>>, SourceError> {
        self.check_link()?;
        self.sent(1);
        let found = self.visible_table(table);
        Ok(Some(
            found.map_or_else(Vec::new, |t| self.model.segment_ids(t)),
        ))
    }

    fn reconnect(&mut self) -> Result<(), SourceError> {
        self.can_connect()?;
        self.model.connection_dropped = false;
        self.link = Link::Up;
        self.added_logs.clear();
        self.session = None;
        self.pending = None;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
