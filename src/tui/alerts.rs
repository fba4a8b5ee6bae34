//! The alerts the screen raises: where each came from, how retries of
//! one error count as one, and the advice a finding or DDL calls for.

use std::time::Duration;

use crate::engine::finding::Finding;

/// Where an alert came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlertKind {
    Finding,
    SourceError,
}

/// A finding or source error, de-duplicated by code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alert {
    pub kind: AlertKind,
    /// `ORA-01291`, `partial_before_image`, ...
    pub code: String,
    pub message: String,
    pub advice: Option<String>,
    pub count: u64,
    pub first_at: Duration,
    pub last_at: Duration,
    /// The database's clock when the alert was first raised (the operator
    /// compares it with the database's logs, not with the screen's uptime).
    pub raised_at: Option<chrono::NaiveDateTime>,
    /// The engine said it will retry by itself.
    pub retrying: bool,
    /// The engine went back to mining after this error.
    pub resolved: bool,
}

impl Alert {
    /// The alert as one sentence: the code, unless the message starts with
    /// it (ORA- messages do) or there is none.
    pub fn text(&self) -> String {
        if self.code.is_empty() || self.message.starts_with(&self.code) {
            self.message.clone()
        } else {
            format!("{} {}", self.code, self.message)
        }
    }

    /// An error that stopped capture and needs an operator.
    pub fn is_fatal(&self) -> bool {
        self.kind == AlertKind::SourceError && !self.retrying && !self.resolved
    }
}

/// The engine numbers each retry of an error (`… (retry 2)`); the alert
/// counts them instead.
pub(super) fn without_retry_suffix(message: &str) -> &str {
    match message.rfind(" (retry ") {
        Some(i)
            if message.ends_with(')')
                && message[i + 8..message.len() - 1]
                    .bytes()
                    .all(|b| b.is_ascii_digit()) =>
        {
            &message[..i]
        }
        _ => message,
    }
}

/// `ORA-01291` from a message that starts with it.
pub(super) fn ora_code_of(message: &str) -> Option<String> {
    let code = message.get(..9)?;
    (code.starts_with("ORA-") && code[4..].bytes().all(|b| b.is_ascii_digit()))
        .then(|| code.to_string())
}

/// What to do about a finding, where its message does not say it already.
pub fn finding_advice(f: &Finding) -> Option<&'static str> {
    match f {
        Finding::PartialBeforeImage { .. } => None,
        Finding::DictionaryMismatch { .. } => Some(
            "rebuild the LogMiner dictionary (EXECUTE DBMS_LOGMNR_D.BUILD) or mine with the online catalog once the DDL has settled",
        ),
        Finding::Unreconstructable { .. } => {
            Some("check supplemental logging on the table and that its column types are ones LogMiner supports")
        }
        Finding::UnsupportedType { .. } => {
            Some("exclude the column, or read it by snapshot: LogMiner cannot mine this type")
        }
        Finding::LobUnavailable { .. } | Finding::LobNotLogged { .. } => {
            Some("read the LOB column by snapshot where its value is needed")
        }
        Finding::ColumnUnavailable { .. } => Some(
            "add supplemental logging of all columns to the table, or read the column by snapshot",
        ),
        Finding::CharacterHex { .. } => Some(
            "give the dictionary's character sets and column types so character data decodes to text",
        ),
        Finding::UnescapedQuote { .. } => {
            Some("compare the recovered value with the row in the table")
        }
        Finding::JsonUndecoded { .. } => {
            Some("read the JSON column by snapshot where the full value is needed")
        }
        // The message names the parameter to set.
        Finding::KeyOnlyBeforeImage { .. } => None,
        Finding::ReappearedTransaction { .. } => Some(
            "re-read the tables the transaction changed by snapshot; report the V$TRX row that was missing",
        ),
        Finding::DictionaryDrift { .. } => Some(
            "keep capture current around DDL (pause writes to the table, let capture catch up, then run the DDL); re-read the table by snapshot where the column set matters",
        ),
        Finding::UnknownOperation { .. } => Some(
            "report the code with the row (`cdcctl redo parse`); re-read the table by snapshot where the change matters",
        ),
    }
}

/// The partition maintenance in a DDL statement that replaces a segment
/// (a new data object id), if any.
pub fn partition_ddl_action(ddl: &str) -> Option<&'static str> {
    let up = ddl.to_uppercase();
    let words: Vec<&str> = up.split_whitespace().collect();
    if words.first() != Some(&"ALTER") {
        return None;
    }
    words.windows(2).find_map(|w| {
        let action = match w[0] {
            "TRUNCATE" => "TRUNCATE",
            "MOVE" => "MOVE",
            "EXCHANGE" => "EXCHANGE",
            "DROP" => "DROP",
            "SPLIT" => "SPLIT",
            "MERGE" => "MERGE",
            _ => return None,
        };
        matches!(w[1], "PARTITION" | "SUBPARTITION" | "PARTITIONS").then_some(action)
    })
}
