//! Applies a DBA's SQL*Plus script to the simulator: the statements
//! preflight's remediation uses (grants, users and profiles, supplemental
//! logging, `ALTER SYSTEM SET`, the ARCHIVELOG restart, partition DDL,
//! `ALTER SESSION SET CONTAINER`) change the state the catalog facts are
//! read from, with the errors Oracle raises for them in the wrong
//! container. It recognises these statement shapes only; anything else is
//! reported as not applied, never skipped silently.

mod database;
mod privileges;
mod split;
mod tables;
mod tokens;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use super::Sim;
pub use split::{split_comment, statements, Statement};
use tokens::Tokens;

/// An error Oracle (or SQL*Plus) raises for a statement.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("ORA-{code:05}: {message}")]
pub struct ApplyError {
    pub code: u32,
    pub message: String,
}

impl ApplyError {
    pub fn new(code: u32, message: impl Into<String>) -> Self {
        ApplyError {
            code,
            message: message.into(),
        }
    }
}

/// What became of one statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The simulator's state changed (or already was so) as the database's would.
    Applied,
    /// A SQL*Plus setting (WHENEVER, SET, PROMPT, EXIT, ...): no database state.
    Setting,
    /// A statement shape the simulator does not model.
    NotApplied,
    Failed(ApplyError),
}

/// One statement of the script and its outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatementResult {
    pub line: usize,
    pub statement: String,
    pub outcome: Outcome,
}

/// Every statement run, in order; the run stops at the first failure when
/// the script said `WHENEVER SQLERROR EXIT`, as SQL*Plus does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApplyReport {
    pub results: Vec<StatementResult>,
}

impl ApplyReport {
    /// The statements the simulator did not model, as written.
    pub fn not_applied(&self) -> Vec<&str> {
        self.results
            .iter()
            .filter(|r| r.outcome == Outcome::NotApplied)
            .map(|r| r.statement.as_str())
            .collect()
    }

    /// The statements that failed, with their error.
    pub fn failures(&self) -> Vec<(&StatementResult, &ApplyError)> {
        self.results
            .iter()
            .filter_map(|r| match &r.outcome {
                Outcome::Failed(e) => Some((r, e)),
                _ => None,
            })
            .collect()
    }

    pub fn applied(&self) -> usize {
        self.results
            .iter()
            .filter(|r| r.outcome == Outcome::Applied)
            .count()
    }
}

/// Whether the instance is up, as SHUTDOWN and STARTUP leave it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OpenState {
    #[default]
    Open,
    Mounted,
    Down,
}

/// A profile's limits, as `CREATE PROFILE` set them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    /// `None` for a common profile, else the container it was created in.
    pub container: Option<String>,
    pub limits: BTreeMap<String, String>,
}

/// A user a script created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// `None` for a common user, else the container it lives in.
    pub container: Option<String>,
    pub privileges: BTreeSet<String>,
}

/// The dictionary state scripts add to the scenario's: profiles, users,
/// instance state and SPFILE-only parameters waiting for a restart.
#[derive(Debug, Clone, Default)]
pub struct State {
    pub profiles: BTreeMap<String, Profile>,
    pub users: BTreeMap<String, User>,
    pub open: OpenState,
    pub spfile: BTreeMap<String, String>,
}

/// SQL*Plus commands that set up the client, not the database.
const SETTINGS: &[&str] = &[
    "WHENEVER", "SET", "PROMPT", "SPOOL", "REM", "REMARK", "EXIT", "QUIT", "ACCEPT", "DEFINE",
];

/// The session a script runs in: connected as SYSDBA to the root (or the
/// non-CDB), with SQL*Plus's settings.
struct Session<'a> {
    sim: &'a mut Sim,
    container: String,
    exit_on_error: bool,
    substitutions: BTreeMap<String, String>,
}

/// Runs `script` as SQL*Plus would, connected as SYSDBA to CDB$ROOT (or to
/// the non-CDB), and applies each statement to `sim`.
pub fn apply_script(sim: &mut Sim, script: &str) -> ApplyReport {
    let container = if sim.model.scenario.instance.cdb {
        "CDB$ROOT".to_string()
    } else {
        sim.model.scenario.instance.db_name.clone()
    };
    let mut session = Session {
        sim,
        container,
        exit_on_error: false,
        substitutions: BTreeMap::new(),
    };
    let mut report = ApplyReport::default();
    for s in statements(script) {
        let text = session.substitute(&s.text);
        let outcome = match session.run(&text) {
            Ok(o) => o,
            Err(e) => Outcome::Failed(e),
        };
        let stop = matches!(outcome, Outcome::Failed(_)) && session.exit_on_error;
        let exit = matches!(split::first_word(&text).as_str(), "EXIT" | "QUIT");
        report.results.push(StatementResult {
            line: s.line,
            statement: text,
            outcome,
        });
        if stop || exit {
            break;
        }
    }
    report
}

impl Session<'_> {
    /// `&name` replaced by what `ACCEPT`/`DEFINE` bound.
    fn substitute(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (k, v) in &self.substitutions {
            out = out.replace(&format!("&{k}"), v);
        }
        out
    }

    fn run(&mut self, text: &str) -> Result<Outcome, ApplyError> {
        let mut t = Tokens::new(text);
        let first = t.peek_word();
        // DM8's statements look like Oracle's but mean other things (its
        // ALTER DATABASE MOUNT, its archive destinations): not modelled.
        if self.sim.model.scenario.is_dm() && !SETTINGS.contains(&first.as_str()) {
            return Ok(Outcome::NotApplied);
        }
        if let Some(o) = self.sqlplus(&first, &mut t)? {
            return Ok(o);
        }
        self.need_open(&first, &t)?;
        match first.as_str() {
            "GRANT" => self.grant(&mut t),
            "CREATE" => self.create(&mut t),
            "ALTER" => self.alter(&mut t),
            _ => Ok(Outcome::NotApplied),
        }
    }

    /// SQL*Plus's own commands; `None` for a SQL statement.
    fn sqlplus(&mut self, first: &str, t: &mut Tokens) -> Result<Option<Outcome>, ApplyError> {
        Ok(Some(match first {
            "WHENEVER" => {
                t.next();
                if t.eat("SQLERROR") {
                    self.exit_on_error = t.eat("EXIT");
                }
                Outcome::Setting
            }
            "SET" | "PROMPT" | "SPOOL" | "REM" | "REMARK" | "EXIT" | "QUIT" => Outcome::Setting,
            "ACCEPT" | "DEFINE" => {
                t.next();
                let name = t.next().unwrap_or_default().to_ascii_lowercase();
                // The operator types the value: any stands in for it here.
                self.substitutions.insert(name, "entered".into());
                Outcome::Setting
            }
            "SHUTDOWN" => self.shutdown()?,
            "STARTUP" => self.startup(t)?,
            _ => return Ok(None),
        }))
    }

    /// ORA-01034 / ORA-01109 for SQL sent to an instance that is down or
    /// only mounted (ALTER DATABASE is what a mounted one takes).
    fn need_open(&self, first: &str, t: &Tokens) -> Result<(), ApplyError> {
        match self.sim.dba.open {
            OpenState::Open => Ok(()),
            OpenState::Down => Err(ApplyError::new(1034, "ORACLE not available")),
            OpenState::Mounted if first == "ALTER" && t.second_word() == "DATABASE" => Ok(()),
            OpenState::Mounted => Err(ApplyError::new(1109, "database not open")),
        }
    }

    fn is_cdb(&self) -> bool {
        self.sim.model.scenario.instance.cdb
    }

    fn in_root(&self) -> bool {
        self.is_cdb() && self.container.eq_ignore_ascii_case("CDB$ROOT")
    }

    /// `CONTAINER=ALL` (true), `CONTAINER=CURRENT` (false), or neither;
    /// ALL is taken only in the root of a CDB.
    fn container_clause(&self, t: &mut Tokens) -> Result<bool, ApplyError> {
        if !t.eat_seq(&["CONTAINER", "="]) {
            return Ok(false);
        }
        if !t.eat("ALL") {
            t.eat("CURRENT");
            return Ok(false);
        }
        if !self.is_cdb() {
            return Err(ApplyError::new(
                65090,
                "operation only allowed in a container database",
            ));
        }
        if !self.in_root() {
            return Err(ApplyError::new(
                65050,
                "Common DDLs only allowed in CDB$ROOT",
            ));
        }
        Ok(true)
    }

    fn create(&mut self, t: &mut Tokens) -> Result<Outcome, ApplyError> {
        match t.second_word().as_str() {
            "PROFILE" => self.create_profile(t),
            "USER" => self.create_user(t),
            _ => Ok(Outcome::NotApplied),
        }
    }

    fn alter(&mut self, t: &mut Tokens) -> Result<Outcome, ApplyError> {
        match t.second_word().as_str() {
            "SESSION" => self.alter_session(t),
            "USER" => self.alter_user(t),
            "DATABASE" => self.alter_database(t),
            "SYSTEM" => self.alter_system(t),
            "TABLESPACE" => self.alter_tablespace(t),
            "TABLE" => self.alter_table(t),
            _ => Ok(Outcome::NotApplied),
        }
    }

    /// `ALTER SESSION SET CONTAINER = NAME`.
    fn alter_session(&mut self, t: &mut Tokens) -> Result<Outcome, ApplyError> {
        if !t.eat_seq(&["ALTER", "SESSION", "SET", "CONTAINER", "="]) {
            return Ok(Outcome::NotApplied);
        }
        let name = t.next_name();
        if !t.at_end() {
            return Ok(Outcome::NotApplied);
        }
        let inst = &self.sim.model.scenario.instance;
        if !inst.cdb {
            return Err(ApplyError::new(
                65090,
                "operation only allowed in a container database",
            ));
        }
        let known = name.eq_ignore_ascii_case("CDB$ROOT") || inst.pdbs.contains(&name);
        if !known {
            return Err(ApplyError::new(
                65011,
                format!("Pluggable database {name} does not exist."),
            ));
        }
        self.container = if name.eq_ignore_ascii_case("CDB$ROOT") {
            "CDB$ROOT".into()
        } else {
            name
        };
        Ok(Outcome::Applied)
    }
}
