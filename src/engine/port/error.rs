//! The typed error every source answers with, and what it means for
//! capture: whether retrying may succeed and what an operator should run.

use std::borrow::Cow;
use std::fmt;

use super::dm_codes::dm_advice;
use super::ora_codes::ora_advice;

/// A run of log sequences as an operator writes it: `sequence 101` or
/// `sequences 101–102`.
pub fn sequence_range(from: u64, to: u64) -> String {
    if from == to {
        format!("sequence {from}")
    } else {
        format!("sequences {from}–{to}")
    }
}

/// An Oracle (or Oracle-compatible) error code, e.g. `OraCode(1291)` for ORA-01291.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OraCode(pub u32);

impl fmt::Display for OraCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ORA-{:05}", self.0)
    }
}

/// An error from a source (database, simulator or evidence file).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SourceError {
    /// The database raised an error.
    #[error("{code}: {message}")]
    Oracle { code: OraCode, message: String },

    /// The connection dropped or could not be made.
    #[error("source unreachable: {0}")]
    Unreachable(String),

    /// Authentication failed.
    #[error("authentication failed: {0}")]
    Authentication(String),

    /// No password was given for this user, so no login was tried.
    #[error("no password was given for {0}: CDCCTL_PASSWORD is not set and there is no terminal to ask on")]
    NoPassword(String),

    /// No Oracle client library could be loaded (DPI-1047).
    #[error("{0}")]
    NoClientLibrary(String),

    /// A log LogMiner needs is not available (deleted, never archived).
    #[error("no log covers SCN {scn} on thread {thread}: {detail}")]
    MissingLog {
        thread: u16,
        scn: u64,
        detail: String,
    },

    /// The archived-log sequence has a hole.
    #[error("archive gap on thread {thread}: {} missing", sequence_range(*missing_from, *missing_to))]
    ArchiveGap {
        thread: u16,
        missing_from: u64,
        missing_to: u64,
    },

    /// Dameng DM8 raised an error; DM's codes are negative (`[-2106]`).
    #[error("DM8 error [{code}]: {message}")]
    Dm { code: i32, message: String },

    /// Something the caller asked for does not exist (table, scenario, file).
    #[error("{0}")]
    NotFound(String),

    /// The input (scenario, evidence file, config) is invalid.
    #[error("{0}")]
    Invalid(String),

    /// The operation is not available on this source or version.
    #[error("{0}")]
    Unsupported(String),
}

impl SourceError {
    pub fn oracle(code: u32, message: impl Into<String>) -> Self {
        SourceError::Oracle {
            code: OraCode(code),
            message: message.into(),
        }
    }

    /// The ORA- code, if the error carries one.
    pub fn ora_code(&self) -> Option<u32> {
        match self {
            SourceError::Oracle { code, .. } => Some(code.0),
            SourceError::MissingLog { .. } => Some(1291),
            _ => None,
        }
    }

    /// The database's code as a metrics label and a screen show it:
    /// `ORA-01291`, `DM-6852` (DM8's codes are negative); `None` for an
    /// error no database code names.
    pub fn code_label(&self) -> Option<String> {
        match self {
            SourceError::Dm { code, .. } => Some(format!("DM{code}")),
            other => other.ora_code().map(|c| OraCode(c).to_string()),
        }
    }

    /// What to do about it, in one or two sentences.
    pub fn advice(&self) -> Option<Cow<'static, str>> {
        match self {
            SourceError::NoClientLibrary(_) => Some(Cow::Borrowed(
                "install Oracle Instant Client (Basic or Basic Light) and put its directory on LD_LIBRARY_PATH, \
                 or pass --oracle-client-lib DIR; `--source sim` works without it",
            )),
            SourceError::ArchiveGap {
                thread,
                missing_from,
                missing_to,
            } => Some(Cow::Owned(format!(
                "restore the missing archived logs from backup (RMAN> RESTORE ARCHIVELOG SEQUENCE \
                 BETWEEN {missing_from} AND {missing_to} THREAD {thread};), or take a new snapshot: \
                 changes in the gap cannot be captured"
            ))),
            SourceError::Unreachable(_) => Some(Cow::Borrowed(
                "check the host and port (and the Oracle service) in --source, and that the \
                 database listens there; cdcctl retries transient drops",
            )),
            SourceError::NoPassword(_) => Some(Cow::Borrowed(
                "give the password in CDCCTL_PASSWORD, or run on a terminal to be asked for it \
                 (for Oracle also a wallet: oracle://@ALIAS)",
            )),
            SourceError::Authentication(_) => Some(Cow::Borrowed(
                "check the user; the password comes from CDCCTL_PASSWORD or the prompt on a \
                 terminal (for Oracle also a wallet: oracle://@ALIAS)",
            )),
            SourceError::Dm { code, message } => dm_object_advice(*code, message)
                .or_else(|| dm_advice(*code).map(|a| Cow::Borrowed(a.advice))),
            other => other
                .ora_code()
                .and_then(ora_advice)
                .map(|a| Cow::Borrowed(a.advice)),
        }
    }

    /// No database answered, or the connection dropped: an Oracle-side
    /// `Unreachable`, or DM8's network error, which keeps its code.
    pub fn is_unreachable(&self) -> bool {
        match self {
            SourceError::Unreachable(_) => true,
            SourceError::Dm { code, .. } => {
                dm_advice(*code).is_some_and(|a| a.class == super::dm_codes::DmClass::Connection)
            }
            _ => false,
        }
    }

    /// Whether retrying after a reconnect may succeed.
    pub fn is_transient(&self) -> bool {
        match self {
            SourceError::Unreachable(_) => true,
            SourceError::Oracle { code, .. } => ora_advice(code.0).is_some_and(|a| a.transient),
            SourceError::Dm { code, .. } => dm_advice(*code).is_some_and(|a| a.transient),
            _ => false,
        }
    }
}

/// DM8's "invalid table or view name" with the name it gives in
/// brackets (`无效的表或视图名[V$TRX]`): the grant for that object, not an
/// example's.
fn dm_object_advice(code: i32, message: &str) -> Option<Cow<'static, str>> {
    if code != super::dm_codes::NO_OBJECT {
        return None;
    }
    let name = message.split_once('[')?.1.split_once(']')?.0.trim();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_alphanumeric() || "$_.#\"".contains(c))
    {
        return None;
    }
    let object = if name.contains('.') || !name.starts_with("V$") {
        name.to_string()
    } else {
        format!("SYS.{name}")
    };
    Some(Cow::Owned(format!(
        "grant SELECT on it (GRANT SELECT ON {object} TO the capture user), or check the \
         name's case"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_dm8_view_gets_the_grant_for_that_view_not_an_example_issue34() {
        let e = |message: &str| SourceError::Dm {
            code: super::super::dm_codes::NO_OBJECT,
            message: message.into(),
        };
        let advice = |m: &str| e(m).advice().map(Cow::into_owned).unwrap_or_default();
        assert!(advice("无效的表或视图名[V$TRX]").contains("GRANT SELECT ON SYS.V$TRX"));
        assert!(advice("无效的表或视图名[APP.ORDERS]").contains("GRANT SELECT ON APP.ORDERS"));
        // No name to give: the table's general advice.
        assert!(advice("无效的表或视图名").contains("GRANT SELECT"));
    }

    #[test]
    fn every_database_error_has_its_code_as_a_label_dm8_included_issue34() {
        assert_eq!(
            SourceError::oracle(3113, "eof").code_label().as_deref(),
            Some("ORA-03113")
        );
        let dm = SourceError::Dm {
            code: -6852,
            message: "x".into(),
        };
        assert_eq!(dm.code_label().as_deref(), Some("DM-6852"));
        assert_eq!(SourceError::Invalid("x".into()).code_label(), None);
    }

    #[test]
    fn ora_codes_print_with_five_digits() {
        assert_eq!(
            SourceError::oracle(1291, "missing logfile").to_string(),
            "ORA-01291: missing logfile"
        );
        assert_eq!(OraCode(44609).to_string(), "ORA-44609");
    }

    #[test]
    fn every_fault_the_simulator_raises_has_advice() {
        for code in [1291, 1555, 8103, 44609, 65040, 3113] {
            let e = SourceError::oracle(code, "x");
            assert!(e.advice().is_some(), "no advice for {code}");
        }
    }

    #[test]
    fn issue8_invalid_scn_range_is_transient_with_advice() {
        let e = SourceError::oracle(1281, "SCN range specified is invalid");
        assert!(e.is_transient());
        assert!(e.advice().is_some_and(|a| a.contains("waits")));
    }

    #[test]
    fn dropped_connection_is_transient_and_missing_log_is_not() {
        assert!(SourceError::oracle(3113, "eof").is_transient());
        assert!(!SourceError::oracle(1291, "missing").is_transient());
        assert!(!SourceError::MissingLog {
            thread: 1,
            scn: 5,
            detail: String::new()
        }
        .is_transient());
    }
}
