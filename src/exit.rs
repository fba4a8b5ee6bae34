//! The exit-code contract every command keeps (documented in README.md),
//! and which failures fall under which code: the classification is the
//! library's, so the daemon and the command line agree on it.

use crate::engine::capture::CaptureError;
use crate::engine::txn::TxnError;
use crate::source::SourceError;

/// Healthy, or the command finished.
pub const OK: u8 = 0;
/// Findings at or above `--fail-on`.
pub const FINDINGS: u8 = 1;
/// Usage or configuration error.
pub const USAGE: u8 = 2;
/// Source unreachable, or authentication failed.
pub const UNREACHABLE: u8 = 3;
/// Capture stopped on data it could not trust (parse failure, missing log, gap).
pub const UNTRUSTED_DATA: u8 = 4;

/// The contract as `cdcctl --help` and cdcctl(1) print it.
pub const TABLE: &str = "\
Exit codes:
  0  healthy, or the command finished
  1  preflight: findings at or above --fail-on (default fail)
  2  usage or configuration error: bad arguments, unreadable file, unknown table or scenario
  3  source unreachable or authentication failed (including no password given, no Oracle client library)
  4  capture stopped on data it could not trust (an unparseable row, a missing log,
     an archive gap), or run/tail found at the start that capture cannot work
preflight --format json|junit writes a report naming the error on exit 2 and 3 too.";

/// Exit code for an ORA- error that stopped a command. `None` is an error
/// without a code from the engine itself (a row it could not parse).
pub fn for_ora(ora_code: Option<u32>) -> u8 {
    match ora_code {
        None | Some(1291 | 1284 | 310 | 1555 | 8103 | 8180 | 1466) => UNTRUSTED_DATA,
        Some(942 | 1031 | 44609 | 65040 | 1950) => USAGE,
        // Network, login and anything else the database answered: the
        // source failed, not the data.
        Some(_) => UNREACHABLE,
    }
}

/// Exit code for a DM8 error, by what its code means (as [`for_ora`]).
pub fn for_dm(dm_code: i32) -> u8 {
    use crate::source::dm::error::{dm_advice, DmClass};
    match dm_advice(dm_code).map(|a| a.class) {
        Some(DmClass::MissingLog | DmClass::FlashbackExpired) => UNTRUSTED_DATA,
        Some(DmClass::MissingObject | DmClass::NoPrivilege | DmClass::MissingPackage) => USAGE,
        Some(DmClass::Connection | DmClass::Login) | None => UNREACHABLE,
    }
}

/// Exit code for a source error.
pub fn for_source(e: &SourceError) -> u8 {
    match e {
        SourceError::Unreachable(_)
        | SourceError::Authentication(_)
        | SourceError::NoPassword(_)
        | SourceError::NoClientLibrary(_) => UNREACHABLE,
        SourceError::MissingLog { .. } | SourceError::ArchiveGap { .. } => UNTRUSTED_DATA,
        SourceError::Oracle { code, .. } => for_ora(Some(code.0)),
        SourceError::Dm { code, .. } => for_dm(*code),
        SourceError::NotFound(_) | SourceError::Invalid(_) | SourceError::Unsupported(_) => USAGE,
    }
}

/// Exit code for an error that stopped capture.
pub fn for_capture(e: &CaptureError) -> u8 {
    match e {
        // The spill directory is ours to configure, like the sink.
        CaptureError::Txn(TxnError::Spill { .. }) => USAGE,
        _ if e.is_untrusted_data() => UNTRUSTED_DATA,
        CaptureError::Source(s) => for_source(s),
        // The sink is ours (a file, stdout): a configuration matter.
        _ => USAGE,
    }
}

/// An error message with its advice on a second line.
pub fn with_advice(message: impl std::fmt::Display, advice: Option<&str>) -> String {
    match advice {
        Some(a) => format!("{message}\n  advice: {a}"),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_errors_exit_3_missing_logs_exit_4_and_grants_exit_2() {
        assert_eq!(for_ora(Some(3113)), UNREACHABLE);
        assert_eq!(for_ora(Some(1291)), UNTRUSTED_DATA);
        assert_eq!(for_ora(Some(1031)), USAGE);
        assert_eq!(for_ora(None), UNTRUSTED_DATA);
    }

    #[test]
    fn dm8_errors_exit_by_what_their_code_means() {
        use crate::source::dm::error;
        let dm = |code| SourceError::Dm {
            code,
            message: String::new(),
        };
        assert_eq!(for_source(&dm(error::NO_PACKAGE_MEMBER)), USAGE);
        assert_eq!(for_source(&dm(error::NO_OBJECT)), USAGE);
        assert_eq!(for_source(&dm(error::LOG_OPEN_FAILED)), UNTRUSTED_DATA);
        assert_eq!(for_source(&dm(-9999)), UNREACHABLE);
    }

    #[test]
    fn a_spill_directory_error_is_a_configuration_error() {
        let e = CaptureError::Txn(TxnError::Spill {
            xid: "0A00".into(),
            source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        });
        assert_eq!(for_capture(&e), USAGE);
    }

    #[test]
    fn a_dropped_connection_that_outlasts_the_retries_exits_3() {
        let e = CaptureError::Source(SourceError::oracle(
            3113,
            "end-of-file on communication channel",
        ));
        assert_eq!(for_capture(&e), UNREACHABLE);
    }

    #[test]
    fn a_database_in_another_incarnation_than_the_checkpoint_exits_4() {
        let at = |scn| crate::source::Incarnation {
            resetlogs_change: scn,
            resetlogs_time: chrono::NaiveDateTime::default(),
        };
        let e = CaptureError::IncarnationChanged {
            stored: at(1),
            current: at(5000),
        };
        assert_eq!(for_capture(&e), UNTRUSTED_DATA);
        assert!(e.advice().is_some());
    }
}
