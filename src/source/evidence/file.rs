//! The evidence file: its format marker and version, the rows of each
//! named query, and reading a spool that SQL*Plus may have wrapped or
//! littered with its own chatter.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::source::{Dialect, SourceError};

/// The `format` key every evidence file carries.
pub const FORMAT: &str = "cdcctl-evidence";
/// The evidence format version this build reads and writes.
pub const VERSION: u32 = 1;

/// The views and packages a LogMiner client touches.
pub const REQUIRED_OBJECTS: &[&str] = &[
    "V$DATABASE",
    "V$LOG",
    "V$LOG_HISTORY",
    "V$LOGFILE",
    "V$ARCHIVED_LOG",
    "V$ARCHIVE_DEST",
    "V$ARCHIVE_DEST_STATUS",
    "V$TRANSACTION",
    "V$SESSION",
    "V$LOGMNR_LOGS",
    "V$LOGMNR_CONTENTS",
    "V$LOGMNR_PARAMETERS",
    "V$MYSTAT",
    "V$STATNAME",
    "DBMS_LOGMNR",
    "DBMS_LOGMNR_D",
];

/// One row: upper-case column name → JSON value.
pub type Row = BTreeMap<String, Value>;

/// The rows of one query, or the error the database raised for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum QueryRows {
    Rows(Vec<Row>),
    Error { error: String },
}

/// An evidence file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvidenceFile {
    pub format: String,
    pub version: u32,
    #[serde(default)]
    pub collected_at: Option<String>,
    #[serde(default)]
    pub dialect: Dialect,
    /// Where the rows came from (`collect --from-source` fills it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub queries: BTreeMap<String, QueryRows>,
}

impl EvidenceFile {
    /// Parses evidence text, refusing files of other tools and versions.
    pub fn parse(text: &str, path: &str) -> Result<Self, SourceError> {
        let v: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => repair_lines(text).ok_or_else(|| {
                SourceError::Invalid(format!(
                    "{path} is not an evidence file: it is not JSON ({e}); produce one with `cdcctl collect`"
                ))
            })?,
        };
        match v.get("format").and_then(Value::as_str) {
            Some(FORMAT) => {}
            other => {
                return Err(SourceError::Invalid(format!(
                    "{path} is not a cdcctl evidence file (format {}); produce one with `cdcctl collect`",
                    other.map(|s| format!("`{s}`")).unwrap_or_else(|| "missing".into())
                )))
            }
        }
        let file: EvidenceFile = serde_json::from_value(v).map_err(|e| {
            SourceError::Invalid(format!("{path}: the evidence file is malformed: {e}"))
        })?;
        if file.version != VERSION {
            return Err(SourceError::Invalid(format!(
                "{path}: evidence version {} is not supported (this cdcctl reads version {VERSION})",
                file.version
            )));
        }
        Ok(file)
    }

    pub(super) fn rows(&self, name: &str) -> Result<&[Row], String> {
        match self.queries.get(name) {
            Some(QueryRows::Rows(r)) => Ok(r),
            Some(QueryRows::Error { error }) => Err(format!("query `{name}` failed: {error}")),
            None => Err(format!("query `{name}` is not in the evidence file")),
        }
    }

    /// Rows of a query that may be absent or refused: empty then.
    pub(super) fn rows_or_empty(&self, name: &str) -> &[Row] {
        self.rows(name).unwrap_or(&[])
    }
}

/// Reads a file spooled by the disql or yasql script (`collect
/// --dialect dm|yashandb`), which prints one JSON line per row between a
/// section's `"name":[` and `]` lines. When the database refused a query,
/// the client printed its error text inside that section instead: the
/// section becomes `{"error": text}` and the rest of the file still reads.
/// `None` when the text does not have that layout.
pub fn repair_lines(text: &str) -> Option<Value> {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let mut head = String::new();
    for line in lines.by_ref() {
        if line == "\"queries\":{" {
            break;
        }
        if line.starts_with('{') || line.starts_with('"') {
            head.push_str(line);
        }
    }
    let head: Value = serde_json::from_str(&format!("{}}}", head.trim_end_matches(','))).ok()?;
    let mut file = head.as_object()?.clone();
    file.get("format")?;
    // Only the disql and yasql scripts print this layout; an Oracle spool
    // that is not JSON stays an error.
    if !matches!(
        file.get("dialect").and_then(Value::as_str),
        Some("dm" | "yashandb")
    ) {
        return None;
    }
    let mut queries = serde_json::Map::new();
    let mut section: Option<(String, Vec<String>, Vec<String>)> = None;
    for line in lines {
        match section.as_mut() {
            None => {
                let name = line
                    .trim_start_matches(',')
                    .strip_suffix(":[")
                    .and_then(|n| n.strip_prefix('"'))
                    .and_then(|n| n.strip_suffix('"'));
                if let Some(name) = name {
                    section = Some((name.to_string(), Vec::new(), Vec::new()));
                }
            }
            Some((_, rows, noise)) => {
                if line == "]" {
                    let (name, rows, noise) = section.take()?;
                    queries.insert(name, section_value(&rows, &noise));
                } else if line.starts_with('{') || line.starts_with(",{") {
                    rows.push(line.trim_start_matches(',').to_string());
                } else if !is_echo(line) && !is_chatter(line) {
                    noise.push(line.to_string());
                }
            }
        }
    }
    if let Some((name, rows, mut noise)) = section {
        noise.push("the file ends inside this query's rows".into());
        queries.insert(name, section_value(&rows, &noise));
    }
    file.insert("queries".into(), Value::Object(queries));
    Some(Value::Object(file))
}

/// A statement the client echoed back: not an error.
pub(super) fn is_echo(line: &str) -> bool {
    let up = line.to_ascii_uppercase();
    up.starts_with("SQL>")
        || up.starts_with("SELECT ")
        || up.starts_with("FROM ")
        || up.starts_with("|| ")
}

/// What disql and yasql print about a statement when their settings do
/// not silence it (row counts, timings, an empty result): not an error.
pub(super) fn is_chatter(line: &str) -> bool {
    let low = line.to_ascii_lowercase();
    let counted = low.split_once(' ').is_some_and(|(n, rest)| {
        n.chars().all(|c| c.is_ascii_digit())
            && [
                "row fetched",
                "rows fetched",
                "row selected",
                "rows selected",
            ]
            .iter()
            .any(|w| rest.starts_with(w))
    });
    counted
        || low == "no rows selected"
        || low.starts_with("elapsed:")
        || low == "succeed."
        || line.starts_with("未选定行")
        || line.starts_with("行数")
        || line.starts_with("已用时间")
}

pub(super) fn section_value(rows: &[String], noise: &[String]) -> Value {
    if !noise.is_empty() {
        let error: String = noise.iter().take(3).cloned().collect::<Vec<_>>().join(" ");
        let error: String = error.chars().take(300).collect();
        return serde_json::json!({ "error": error });
    }
    let parsed: Result<Vec<Value>, _> = rows.iter().map(|r| serde_json::from_str(r)).collect();
    match parsed {
        Ok(v) => Value::Array(v),
        Err(e) => serde_json::json!({ "error": format!("a row is not JSON: {e}") }),
    }
}
