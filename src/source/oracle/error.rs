//! Maps errors of the `oracle` crate to `SourceError`.
//!
//! The decision is a pure function of the error's kind, ORA- code and
//! message ([`classify`]) so every mapping is tested without a database.

use ::oracle::ErrorKind;

use crate::engine::port::ora_codes::ora_advice;
use crate::source::SourceError;

/// ORA- codes of a connection that failed or dropped: the listener, the
/// network, or an instance that is down.
const NETWORK_CODES: &[u32] = &[
    28,    // your session has been killed
    1012,  // not logged on
    1033,  // initialization or shutdown in progress
    1034,  // ORACLE not available
    1089,  // immediate shutdown in progress
    1092,  // instance terminated, disconnection forced
    2396,  // exceeded maximum idle time
    3113,  // end-of-file on communication channel
    3114,  // not connected to ORACLE
    3135,  // connection lost contact
    12153, // TNS: not connected
    12154, // could not resolve the connect identifier
    12170, // connect timeout
    12500, // listener failed to start a dedicated server
    12505, // listener does not know the SID
    12514, // listener does not know the service
    12516, // listener could not find a handler
    12518, // listener could not hand off the client
    12519, // no appropriate service handler found
    12520, // no handler for the requested server type
    12521, // listener does not know the instance
    12528, // all instances are blocking new connections
    12537, // connection closed
    12541, // no listener
    12543, // destination host unreachable
    12545, // target host or object does not exist
    12547, // lost contact
    12560, // protocol adapter error
    12571, // packet writer failure
];

/// ORA- codes of a refused logon.
const AUTH_CODES: &[u32] = &[
    1005, // null password given
    1017, // invalid username/password
    1045, // user lacks CREATE SESSION
    1040, // invalid character in password
];

/// ODPI-C errors of a connection that is gone.
const DPI_DISCONNECTED: &[&str] = &["DPI-1010", "DPI-1080", "DPI-1067"];

/// The message of a missing client library, with what to do.
pub fn no_client_message(detail: &str) -> String {
    let detail = first_line(detail);
    // ODPI-C appends a help URL; the advice says what to do instead.
    let detail = detail
        .split_once(". See http")
        .map_or(detail, |(head, _)| head);
    // What to install is the error's advice, printed with it once.
    format!("cannot load the Oracle client library ({detail})")
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("").trim()
}

/// Drops the `ORA-01017: ` prefix Oracle puts on its messages: the
/// `SourceError::Oracle` display adds the code back.
fn strip_ora_prefix(message: &str) -> &str {
    let line = first_line(message);
    match line.split_once(": ") {
        Some((head, rest)) if head.starts_with("ORA-") && head.len() == 9 => rest,
        _ => line,
    }
}

/// Maps an error from its parts: the crate's kind, the database error's
/// code (0 when none) and message, and the error's display text.
pub fn classify(kind: ErrorKind, code: i32, message: &str, display: &str) -> SourceError {
    match kind {
        ErrorKind::DpiError => {
            if message.starts_with("DPI-1047") {
                SourceError::NoClientLibrary(no_client_message(message))
            } else if DPI_DISCONNECTED.iter().any(|p| message.starts_with(p)) {
                SourceError::Unreachable(first_line(message).to_string())
            } else {
                SourceError::Invalid(format!("the Oracle client failed: {}", first_line(message)))
            }
        }
        ErrorKind::OciError => {
            let Ok(code) = u32::try_from(code) else {
                return SourceError::Invalid(format!(
                    "the Oracle client failed: {}",
                    first_line(message)
                ));
            };
            if AUTH_CODES.contains(&code) {
                SourceError::Authentication(first_line(message).to_string())
            } else if NETWORK_CODES.contains(&code) {
                let text = first_line(message);
                match ora_advice(code) {
                    Some(a) => SourceError::Unreachable(format!("{text} ({})", a.advice)),
                    None => SourceError::Unreachable(text.to_string()),
                }
            } else if code == 0 {
                SourceError::Invalid(format!("the Oracle client failed: {}", first_line(message)))
            } else {
                SourceError::oracle(code, strip_ora_prefix(message))
            }
        }
        ErrorKind::NullValue => SourceError::Invalid(format!(
            "Oracle returned NULL where a value is required: {display}"
        )),
        _ => SourceError::Invalid(format!("unexpected value from Oracle: {display}")),
    }
}

/// Maps an error of the `oracle` crate.
pub fn map_error(err: &::oracle::Error) -> SourceError {
    let (code, message) = match err.db_error() {
        Some(db) => (db.code(), db.message().to_string()),
        None => (0, err.to_string()),
    };
    classify(err.kind(), code, &message, &err.to_string())
}

/// The ORA- code of an error, if it carries one.
pub fn ora_code(err: &::oracle::Error) -> Option<u32> {
    match err.kind() {
        ErrorKind::OciError => err
            .db_error()
            .and_then(|db| u32::try_from(db.code()).ok())
            .filter(|c| *c != 0),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::OraCode;

    fn oci(code: i32, message: &str) -> SourceError {
        classify(ErrorKind::OciError, code, message, message)
    }

    #[test]
    fn dpi_1047_is_no_client_library_with_install_advice() {
        let msg = "DPI-1047: Cannot locate a 64-bit Oracle Client library: \"libclntsh.so: cannot open shared object file\"";
        let e = classify(ErrorKind::DpiError, 0, msg, msg);
        let SourceError::NoClientLibrary(text) = &e else {
            panic!("expected NoClientLibrary, got {e:?}");
        };
        assert!(text.contains("libclntsh.so"));
        assert!(
            !text.contains("Instant Client"),
            "the advice says it: {text}"
        );
        let advice = e.advice().unwrap_or_default();
        assert!(advice.contains("Instant Client") && advice.contains("--source sim"));
    }

    #[test]
    fn dpi_error_code_zero_is_not_mistaken_for_an_ora_code() {
        let e = classify(
            ErrorKind::DpiError,
            0,
            "DPI-1002: invalid dpiConn handle",
            "x",
        );
        assert!(matches!(e, SourceError::Invalid(_)), "{e:?}");
        assert_eq!(e.ora_code(), None);
    }

    #[test]
    fn dropped_connection_dpi_errors_are_unreachable() {
        for msg in [
            "DPI-1010: not connected",
            "DPI-1080: connection was closed by ORA-3113",
            "DPI-1067: call timeout of 1000 ms exceeded",
        ] {
            let e = classify(ErrorKind::DpiError, 0, msg, msg);
            assert!(matches!(e, SourceError::Unreachable(_)), "{msg}: {e:?}");
            assert!(e.is_transient());
        }
    }

    #[test]
    fn ora_codes_map_to_their_variants() {
        let auth = [1017, 1005, 1045];
        for code in auth {
            let e = oci(code, &format!("ORA-{code:05}: logon denied"));
            assert!(matches!(e, SourceError::Authentication(_)), "{code}: {e:?}");
        }
        let network = [
            12514, 12505, 12541, 3113, 3114, 3135, 12170, 12545, 1034, 28, 2396,
        ];
        for code in network {
            let e = oci(code, &format!("ORA-{code:05}: network trouble"));
            assert!(matches!(e, SourceError::Unreachable(_)), "{code}: {e:?}");
        }
        let plain = [
            942, 1031, 1291, 1555, 8103, 44609, 65040, 28000, 28001, 1306,
        ];
        for code in plain {
            let e = oci(code, &format!("ORA-{code:05}: something"));
            assert_eq!(
                e,
                SourceError::Oracle {
                    code: OraCode(code as u32),
                    message: "something".into()
                },
                "{code}"
            );
        }
    }

    #[test]
    fn unreachable_keeps_the_code_and_the_specific_advice() {
        let e = oci(
            12514,
            "ORA-12514: Cannot connect to database. Service FREEPDB9 is not registered with the listener",
        );
        let text = e.to_string();
        assert!(text.contains("ORA-12514"), "{text}");
        assert!(text.contains("V$SERVICES"), "{text}");
    }

    #[test]
    fn oracle_messages_lose_the_prefix_and_the_help_line() {
        let e = oci(
            1555,
            "ORA-01555: snapshot too old: rollback segment number 12 with name \"_SYSSMU12$\" too small\nHelp: https://docs.oracle.com/error-help/db/ora-01555/",
        );
        assert_eq!(
            e.to_string(),
            "ORA-01555: snapshot too old: rollback segment number 12 with name \"_SYSSMU12$\" too small"
        );
        assert!(e.advice().is_some());
    }

    #[test]
    fn conversion_errors_are_invalid_data_not_database_errors() {
        let e = classify(ErrorKind::ParseError, 0, "", "invalid number");
        assert!(matches!(e, SourceError::Invalid(_)), "{e:?}");
        let e = classify(ErrorKind::NullValue, 0, "", "NULL value found");
        assert!(matches!(e, SourceError::Invalid(_)), "{e:?}");
    }
}
