//! The catalog an evidence file answers as (`preflight --from-file`), and
//! the facts read once from a live source and answered offline after.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::source::{
    Catalog, InstanceFacts, LogInventory, OpenTransaction, SessionFacts, SessionTransaction,
    SourceError, TableFacts, TablePattern, TransactionSession,
};

use super::file::*;
use super::instance::*;
use super::tables::*;

/// A `Catalog` over an evidence file: every fact is mapped once at load.
#[derive(Debug, Clone)]
pub struct EvidenceCatalog {
    pub origin: String,
    instance: Result<InstanceFacts, String>,
    session: Result<SessionFacts, String>,
    tables: Result<Vec<TableFacts>, String>,
    transactions: Result<Vec<SessionTransaction>, String>,
    inventory: Result<LogInventory, String>,
}

impl EvidenceCatalog {
    /// Reads an evidence file from disk.
    pub fn open(path: &std::path::Path) -> Result<Self, SourceError> {
        let shown = path.display().to_string();
        let text = crate::limits::read_text(path, crate::limits::EVIDENCE_BYTES).map_err(|e| {
            SourceError::Invalid(format!("cannot read the evidence file {shown}: {e}"))
        })?;
        Ok(Self::from_file(
            &EvidenceFile::parse(&text, &shown)?,
            &shown,
        ))
    }

    pub fn from_file(ev: &EvidenceFile, origin: &str) -> Self {
        EvidenceCatalog {
            origin: origin.to_string(),
            instance: instance_from(ev),
            session: session_from(ev),
            tables: tables_from(ev),
            transactions: transactions_from(ev),
            inventory: inventory_from(ev),
        }
    }
}

pub(super) fn missing(what: &str, e: &str) -> SourceError {
    SourceError::NotFound(format!("the evidence has no {what} facts: {e}"))
}

impl Catalog for EvidenceCatalog {
    fn instance(&mut self) -> Result<InstanceFacts, SourceError> {
        self.instance.clone().map_err(|e| missing("instance", &e))
    }
    fn session(&mut self) -> Result<SessionFacts, SourceError> {
        self.session.clone().map_err(|e| missing("session", &e))
    }
    fn tables(&mut self, patterns: &[TablePattern]) -> Result<Vec<TableFacts>, SourceError> {
        let all = self.tables.clone().map_err(|e| missing("table", &e))?;
        Ok(all
            .into_iter()
            .filter(|t| patterns.is_empty() || patterns.iter().any(|p| p.matches(&t.name)))
            .collect())
    }
    fn open_transactions(&mut self) -> Result<Vec<OpenTransaction>, SourceError> {
        Ok(self
            .transaction_sessions()?
            .into_iter()
            .map(|t| t.transaction)
            .collect())
    }
    fn transaction_sessions(&mut self) -> Result<Vec<SessionTransaction>, SourceError> {
        self.transactions
            .clone()
            .map_err(|e| missing("transaction", &e))
    }
    fn log_inventory(&mut self) -> Result<LogInventory, SourceError> {
        self.inventory.clone().map_err(|e| missing("log", &e))
    }
}

/// The catalog facts themselves as one JSON document (the structs' serde
/// form): hand-written fixtures and `collect --facts` use it. Missing parts
/// read as "could not be read".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FactsSnapshot {
    pub instance: Option<InstanceFacts>,
    pub session: Option<SessionFacts>,
    pub tables: Option<Vec<TableFacts>>,
    pub transactions: Option<Vec<SnapshotTransaction>>,
    pub inventory: Option<LogInventory>,
}

/// A transaction of a facts file: the `V$TRANSACTION` fields, and the
/// session holding it under `session` when it was read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SnapshotTransaction {
    #[serde(flatten)]
    pub transaction: OpenTransaction,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<TransactionSession>,
}

impl FactsSnapshot {
    pub fn open(path: &std::path::Path) -> Result<Self, SourceError> {
        let shown = path.display().to_string();
        let text = crate::limits::read_text(path, crate::limits::EVIDENCE_BYTES).map_err(|e| {
            SourceError::Invalid(format!("cannot read the facts file {shown}: {e}"))
        })?;
        Self::parse(&text, &shown)
    }

    fn parse(text: &str, shown: &str) -> Result<Self, SourceError> {
        serde_json::from_str(text)
            .map_err(|e| SourceError::Invalid(format!("{shown} is not a cdcctl facts file: {e}")))
    }
}

/// Opens an offline facts file of either form: an evidence file (what
/// `cdcctl collect` and `collect --from-source` write, told apart by its
/// `format` key) or the facts structs' own JSON.
pub fn open_offline(path: &std::path::Path) -> Result<Box<dyn Catalog>, SourceError> {
    let shown = path.display().to_string();
    let text = crate::limits::read_text(path, crate::limits::EVIDENCE_BYTES)
        .map_err(|e| SourceError::Invalid(format!("cannot read the facts file {shown}: {e}")))?;
    let is_evidence = serde_json::from_str::<Value>(&text)
        .ok()
        .is_some_and(|v| v.get("format").and_then(Value::as_str) == Some(FORMAT));
    Ok(if is_evidence {
        Box::new(EvidenceCatalog::from_file(
            &EvidenceFile::parse(&text, &shown)?,
            &shown,
        ))
    } else {
        Box::new(FactsSnapshot::parse(&text, &shown)?)
    })
}

pub(super) fn absent(what: &str) -> SourceError {
    SourceError::NotFound(format!("the facts file has no {what} section"))
}

impl Catalog for FactsSnapshot {
    fn instance(&mut self) -> Result<InstanceFacts, SourceError> {
        self.instance.clone().ok_or_else(|| absent("instance"))
    }
    fn session(&mut self) -> Result<SessionFacts, SourceError> {
        self.session.clone().ok_or_else(|| absent("session"))
    }
    fn tables(&mut self, patterns: &[TablePattern]) -> Result<Vec<TableFacts>, SourceError> {
        let all = self.tables.clone().ok_or_else(|| absent("tables"))?;
        Ok(all
            .into_iter()
            .filter(|t| patterns.is_empty() || patterns.iter().any(|p| p.matches(&t.name)))
            .collect())
    }
    fn open_transactions(&mut self) -> Result<Vec<OpenTransaction>, SourceError> {
        Ok(self
            .transaction_sessions()?
            .into_iter()
            .map(|t| t.transaction)
            .collect())
    }
    fn transaction_sessions(&mut self) -> Result<Vec<SessionTransaction>, SourceError> {
        let all = self
            .transactions
            .clone()
            .ok_or_else(|| absent("transactions"))?;
        Ok(all
            .into_iter()
            .map(|t| SessionTransaction {
                transaction: t.transaction,
                session: t.session,
            })
            .collect())
    }
    fn log_inventory(&mut self) -> Result<LogInventory, SourceError> {
        self.inventory.clone().ok_or_else(|| absent("inventory"))
    }
}
