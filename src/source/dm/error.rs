//! Maps errors of the `dm-pure` driver and of the DM8 server to
//! `SourceError`, and says what each DM8 code means for capture.
//!
//! What each code means lives with the engine's port
//! (`engine::port::dm_codes`), re-exported here. A code not listed there
//! is still reported, with DM's own message, as a database error.

pub use crate::engine::port::dm_codes::{
    dm_advice, DmClass, BAD_LOGIN, FLASHBACK_EXPIRED, LOG_OPEN_FAILED, NETWORK, NO_OBJECT,
    NO_PACKAGE_MEMBER,
};
use crate::source::SourceError;

/// The advice when `DBMS_LOGMNR` is found missing before it is called.
pub const MISSING_PACKAGE_MESSAGE: &str =
    "the DBMS_LOGMNR package is not created in this DM8 database (SF_CHECK_SYSTEM_PACKAGE('DBMS_LOGMNR') = 0)";

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("").trim()
}

/// The driver's connect failure reads `连接 HOST:PORT 失败: <io error>`;
/// the address is said by cdcctl's own message, the I/O error is kept.
/// A connection the server closed reads `连接关闭（...）`.
fn io_detail(message: &str) -> &str {
    let line = first_line(message);
    if line.starts_with("连接关闭") {
        return "the server closed the connection";
    }
    match line.split_once("失败: ") {
        Some((_, detail)) if !detail.trim().is_empty() => detail.trim(),
        _ => line,
    }
}

/// Messages of a refused login, for a code this table does not know.
fn is_login_message(message: &str) -> bool {
    let lower = message.to_lowercase();
    [
        "用户名或密码错误",
        "invalid username or password",
        "用户已被锁定",
        "account locked",
    ]
    .iter()
    .any(|m| lower.contains(m))
}

/// Maps an error from its parts: DM's code, its message, and the address
/// (`host:port`) for the messages that need it. `connecting` says whether
/// the error came from opening the session.
///
/// A network error keeps its DM8 code (-6852), so metrics count it under
/// it and its advice is DM8's; it is transient and exits 3 as any
/// unreachable source does.
pub fn classify(code: i32, message: &str, address: &str, connecting: bool) -> SourceError {
    if code == NETWORK {
        let detail = io_detail(message);
        let message = if connecting {
            format!(
                "cannot connect to DM8 at {address}: {detail} (is dmserver running and listening there? DM8's default port is 5236)"
            )
        } else {
            format!("the connection to DM8 at {address} dropped: {detail}")
        };
        return SourceError::Dm { code, message };
    }
    if code == BAD_LOGIN || is_login_message(message) {
        return SourceError::Authentication(format!(
            "DM8 at {address} refused the login: [{code}] {} (DM8 compares user names case included)",
            first_line(message)
        ));
    }
    SourceError::Dm {
        code,
        message: first_line(message).to_string(),
    }
}

/// Maps an error of the `dm-pure` driver.
pub fn map_error(err: &dm_pure::DmError, address: &str, connecting: bool) -> SourceError {
    classify(err.code, &err.msg, address, connecting)
}

/// The DM8 code of an error, if it carries one.
pub fn dm_code(e: &SourceError) -> Option<i32> {
    match e {
        SourceError::Dm { code, .. } => Some(*code),
        _ => None,
    }
}

/// An error that only means "this fact cannot be read here": a view that
/// does not exist or is not granted, or a missing privilege. DM names no
/// single code for every privilege error, so its message is read too.
pub fn is_missing_fact(e: &SourceError) -> bool {
    match e {
        SourceError::Dm { code, message } => {
            matches!(
                dm_advice(*code).map(|a| a.class),
                Some(DmClass::MissingObject | DmClass::NoPrivilege)
            ) || message.contains("权限")
                || message.to_lowercase().contains("privilege")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AT: &str = "127.0.0.1:5236";

    #[test]
    fn connection_refused_is_unreachable_transient_keeps_its_dm8_code_and_the_io_error() {
        let e = classify(
            NETWORK,
            "连接 127.0.0.1:5236 失败: Connection refused (os error 111)",
            AT,
            true,
        );
        assert_eq!(
            e,
            SourceError::Dm {
                code: NETWORK,
                message:
                    "cannot connect to DM8 at 127.0.0.1:5236: Connection refused (os error 111) \
                 (is dmserver running and listening there? DM8's default port is 5236)"
                        .into()
            }
        );
        assert!(e.is_transient() && e.is_unreachable());
        assert_eq!(e.code_label().as_deref(), Some("DM-6852"));
        let advice = e.advice().unwrap_or_default();
        assert!(
            advice.contains("DM8") && !advice.contains("Oracle"),
            "{advice}"
        );
        let closed = classify(NETWORK, "连接关闭（读取帧头）", AT, true);
        assert!(
            closed
                .to_string()
                .contains("the server closed the connection"),
            "{closed}"
        );
        let dropped = classify(NETWORK, "Broken pipe (os error 32)", AT, false);
        assert!(dropped.to_string().contains("dropped"), "{dropped}");
        assert!(dropped.is_transient());
    }

    #[test]
    fn bad_login_is_authentication_by_code_or_by_message() {
        let e = classify(BAD_LOGIN, "用户名或密码错误", AT, true);
        let SourceError::Authentication(text) = &e else {
            panic!("expected Authentication, got {e:?}");
        };
        assert!(text.contains("[-2501]") && text.contains(AT), "{text}");
        let locked = classify(-2999, "用户已被锁定", AT, true);
        assert!(
            matches!(locked, SourceError::Authentication(_)),
            "{locked:?}"
        );
    }

    #[test]
    fn other_codes_stay_dm_errors_with_their_code_and_first_line() {
        let e = classify(
            NO_OBJECT,
            "无效的表或视图名[V$ARCH_FILE]\nat line 1",
            AT,
            false,
        );
        assert_eq!(
            e,
            SourceError::Dm {
                code: NO_OBJECT,
                message: "无效的表或视图名[V$ARCH_FILE]".into()
            }
        );
        assert_eq!(
            e.to_string(),
            "DM8 error [-2106]: 无效的表或视图名[V$ARCH_FILE]"
        );
        assert_eq!(dm_code(&e), Some(NO_OBJECT));
        assert!(is_missing_fact(&e));
        assert!(e.advice().is_some_and(|a| a.contains("GRANT SELECT")));
    }

    #[test]
    fn a_missing_package_and_a_missing_log_have_advice_and_are_not_transient() {
        let pkg = classify(
            NO_PACKAGE_MEMBER,
            "无法解析的成员访问表达式[DBMS_LOGMNR.START_LOGMNR]",
            AT,
            false,
        );
        assert!(pkg
            .advice()
            .is_some_and(|a| a.contains("SP_CREATE_SYSTEM_PACKAGES(1, 'DBMS_LOGMNR')")));
        assert!(!pkg.is_transient());
        assert!(!is_missing_fact(&pkg));
        let log = classify(
            LOG_OPEN_FAILED,
            "[DBMS_LOGMNR.ADD_LOGFILE] 打开文件失败.",
            AT,
            false,
        );
        assert_eq!(
            dm_advice(LOG_OPEN_FAILED).map(|a| a.class),
            Some(DmClass::MissingLog)
        );
        assert!(log.advice().is_some());
    }

    #[test]
    fn privilege_messages_are_missing_facts_and_other_errors_are_not() {
        let e = SourceError::Dm {
            code: -5555,
            message: "没有[V$DM_INI]对象的查询权限".into(),
        };
        assert!(is_missing_fact(&e));
        let syntax = SourceError::Dm {
            code: -2007,
            message: "语法分析出错".into(),
        };
        assert!(!is_missing_fact(&syntax));
        assert!(!is_missing_fact(&SourceError::Unreachable("x".into())));
    }

    #[test]
    fn the_driver_error_with_no_server_maps_through_map_error() {
        let err =
            dm_pure::DmError::conn("连接 127.0.0.1:1 失败: Connection refused (os error 111)");
        let e = map_error(&err, "127.0.0.1:1", true);
        assert!(e.is_unreachable(), "{e:?}");
    }
}
