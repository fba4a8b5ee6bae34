//! Everything the rules read, gathered once from a `Catalog` (simulator,
//! database or evidence file), plus the connector config and run options.

use std::collections::BTreeMap;

use chrono::NaiveDateTime;

use crate::preflight::config::ConnectorConfig;
use crate::preflight::smoke::{SmokeFailure, SmokeResult};
use crate::source::evidence::{rows_from_facts, EvidenceFile};
use crate::source::{
    Catalog, InstanceFacts, LogInventory, SessionFacts, SessionTransaction, SourceError,
    TableFacts, TableName, TablePattern,
};

/// Options of a run that rules read.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleOptions {
    /// Read rate assumed for the snapshot estimate, MB/s.
    pub snapshot_rate_mbps: f64,
    /// Rows per chunk of `cdcctl run`'s snapshot (`--snapshot-chunk-rows`).
    pub snapshot_chunk_rows: u64,
}

impl Default for RuleOptions {
    fn default() -> Self {
        RuleOptions {
            snapshot_rate_mbps: 50.0,
            snapshot_chunk_rows: 10_000,
        }
    }
}

/// The facts of one run. A `None` fact could not be read; `missing` says why.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    pub instance: Option<InstanceFacts>,
    pub session: Option<SessionFacts>,
    /// Tables in scope (`--table` patterns, else the config's tables, else all).
    pub tables: Option<Vec<TableFacts>>,
    /// Every table read, in scope or not (for name-case matching).
    pub candidates: Vec<TableFacts>,
    /// Open transactions with the sessions holding them, oldest first.
    pub transactions: Option<Vec<SessionTransaction>>,
    pub inventory: Option<LogInventory>,
    pub missing: BTreeMap<&'static str, String>,
    pub config: Option<ConnectorConfig>,
    pub options: RuleOptions,
    pub scope: Vec<TablePattern>,
    /// The smoke mine of a live source; `None` when the source cannot mine
    /// (facts and evidence files).
    pub smoke: Option<Result<SmokeResult, SmokeFailure>>,
}

impl Facts {
    /// Reads every fact from `catalog`. An unreachable source or failed
    /// login stops the run; any other error leaves that fact missing.
    pub fn gather(
        catalog: &mut dyn Catalog,
        scope: &[TablePattern],
        config: Option<ConnectorConfig>,
        options: RuleOptions,
        mut progress: impl FnMut(&str),
    ) -> Result<Facts, SourceError> {
        let mut facts = Facts {
            config,
            options,
            scope: scope.to_vec(),
            ..Facts::default()
        };
        progress("instance");
        facts.instance = keep(catalog.instance(), "instance", &mut facts.missing)?;
        progress("session");
        facts.session = keep(catalog.session(), "session", &mut facts.missing)?;
        progress("tables");
        // From CDB$ROOT the root's dictionary shows no PDB table: read the
        // tables inside the PDB the capture targets.
        if let Some(pdb) = facts.table_pdb() {
            keep(catalog.set_pdb(Some(&pdb)), "tables", &mut facts.missing)?;
        }
        let fetch = fetch_patterns(scope, facts.config.as_ref());
        if let Some(all) = keep(catalog.tables(&fetch), "tables", &mut facts.missing)? {
            let in_scope = in_scope(&all, scope, facts.config.as_ref());
            facts.tables = Some(in_scope);
            facts.candidates = all;
        }
        progress("transactions");
        facts.transactions = keep(
            catalog.transaction_sessions(),
            "transactions",
            &mut facts.missing,
        )?;
        progress("logs");
        facts.inventory = keep(catalog.log_inventory(), "logs", &mut facts.missing)?;
        Ok(facts)
    }

    /// The facts as an evidence file: the rows the collect script would
    /// have spooled, every table read (not only those in scope, so that a
    /// later `--table` can choose), and the reason for each missing fact.
    /// A smoke mine is not part of it: evidence cannot mine.
    pub fn to_evidence(&self, source: &str) -> EvidenceFile {
        let why = |fact: &'static str| self.missing_reason(fact);
        let tables = if self.tables.is_some() {
            Ok(self.candidates.as_slice())
        } else {
            Err(why("tables"))
        };
        rows_from_facts(
            self.instance.as_ref().ok_or_else(|| why("instance")),
            self.session.as_ref().ok_or_else(|| why("session")),
            tables,
            self.transactions
                .as_deref()
                .ok_or_else(|| why("transactions")),
            self.inventory.as_ref().ok_or_else(|| why("logs")),
            source,
        )
    }

    /// The database time of the facts, else the newest log time, else the clock.
    pub fn now(&self) -> NaiveDateTime {
        if let Some(t) = self.instance.as_ref().and_then(|i| i.now) {
            return t;
        }
        let newest = self.inventory.as_ref().and_then(|inv| {
            inv.archived
                .iter()
                .filter_map(|a| a.next_time)
                .chain(inv.online.iter().filter_map(|o| o.first_time))
                .max()
        });
        newest.unwrap_or_else(|| chrono::Utc::now().naive_utc())
    }

    /// Owners of the in-scope tables, for the smoke mine.
    pub fn scope_owners(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .tables
            .as_deref()
            .unwrap_or(&[])
            .iter()
            .map(|t| t.name.owner.clone())
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// The PDB whose rows a root session filters on: the config's, if any.
    pub fn target_pdb(&self) -> Option<String> {
        let i = self.instance.as_ref()?;
        let s = self.session.as_ref()?;
        if !i.cdb || s.con_name != "CDB$ROOT" {
            return None;
        }
        let c = self.config.as_ref()?;
        c.pdb_name()
            .or_else(|| {
                c.database_name()
                    .filter(|d| i.pdbs.iter().any(|p| p.name.eq_ignore_ascii_case(d)))
            })
            .map(str::to_string)
    }

    /// The PDB whose tables the checks read from CDB$ROOT, as `V$PDBS`
    /// spells it: the capture's target, else the only open PDB.
    pub fn table_pdb(&self) -> Option<String> {
        let i = self.instance.as_ref()?;
        let s = self.session.as_ref()?;
        if !i.cdb || s.con_name != "CDB$ROOT" {
            return None;
        }
        match self.target_pdb() {
            Some(target) => crate::source::resolve_pdb(&target, &i.pdbs).ok(),
            None => crate::source::sole_open_pdb(&i.pdbs),
        }
    }

    /// Why a fact is missing, as a skip reason.
    pub fn missing_reason(&self, fact: &'static str) -> String {
        match self.missing.get(fact) {
            Some(why) => format!("the {fact} facts could not be read: {why}"),
            None => format!("the source provides no {fact} facts"),
        }
    }
}

fn keep<T>(
    r: Result<T, SourceError>,
    what: &'static str,
    missing: &mut BTreeMap<&'static str, String>,
) -> Result<Option<T>, SourceError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(e @ (SourceError::Authentication(_) | SourceError::NoClientLibrary(_))) => Err(e),
        Err(e) if e.is_unreachable() => Err(e),
        Err(e) => {
            missing.insert(what, e.to_string());
            Ok(None)
        }
    }
}

/// Patterns to read tables with: the user's, else each configured schema in
/// its written and upper case (so a case mismatch is visible), else all.
fn fetch_patterns(scope: &[TablePattern], config: Option<&ConnectorConfig>) -> Vec<TablePattern> {
    if !scope.is_empty() {
        return scope.to_vec();
    }
    let mut out: Vec<TablePattern> = Vec::new();
    if let Some(c) = config {
        for (schema, _) in c.table_names() {
            for owner in [schema.clone(), schema.to_uppercase()] {
                let p = TablePattern {
                    owner,
                    table: "%".into(),
                };
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
    }
    out
}

/// Flink and Debezium table names may be regular expressions; cdcctl treats
/// `.*` as `%` and `.` as `_` and otherwise compares literally.
fn regex_to_like(s: &str) -> String {
    s.replace(".*", "%").replace(['.', '?'], "_")
}

fn in_scope(
    all: &[TableFacts],
    scope: &[TablePattern],
    config: Option<&ConnectorConfig>,
) -> Vec<TableFacts> {
    if !scope.is_empty() {
        return all
            .iter()
            .filter(|t| scope.iter().any(|p| p.matches(&t.name)))
            .cloned()
            .collect();
    }
    let configured = config.map(|c| c.table_names()).unwrap_or_default();
    if configured.is_empty() {
        return all.to_vec();
    }
    let select = |fold: bool| -> Vec<TableFacts> {
        all.iter()
            .filter(|t| {
                configured.iter().any(|(s, n)| {
                    let p = TablePattern {
                        owner: regex_to_like(s),
                        table: regex_to_like(n),
                    };
                    if fold {
                        let upper = TableName {
                            owner: t.name.owner.to_uppercase(),
                            table: t.name.table.to_uppercase(),
                        };
                        TablePattern {
                            owner: p.owner.to_uppercase(),
                            table: p.table.to_uppercase(),
                        }
                        .matches(&upper)
                    } else {
                        p.matches(&t.name)
                    }
                })
            })
            .cloned()
            .collect()
    };
    // A name written in the wrong case (reported by cfg-name-case) still
    // scopes the per-table checks to the table the operator meant.
    let exact = select(false);
    if exact.is_empty() {
        select(true)
    } else {
        exact
    }
}
