//! What each DM8 error code capture can meet means and what to do about
//! it: the advice and the retry decision of
//! [`SourceError`](super::SourceError) for Dameng's errors, and the class
//! that decides cdcctl's exit code.
//!
//! DM8's codes are negative (`[-2106]`). The ones named here come from
//! DM8's error-code table (`SELECT * FROM V$ERR_INFO`, as published in DM's
//! code listings), from the descriptions `dm-pure` carries for the codes
//! it raises itself, and from DM's `DBMS_LOGMNR` examples (`[-4546]` when a
//! log cannot be opened).

/// What a DM8 error means for cdcctl, which decides its exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DmClass {
    /// The network: no server at the address, or the connection dropped.
    Connection,
    /// The server refused the login.
    Login,
    /// A table or view that does not exist or that the user cannot see.
    MissingObject,
    /// The user lacks a privilege.
    NoPrivilege,
    /// `DBMS_LOGMNR` is not created in this database.
    MissingPackage,
    /// A log file LogMiner was given cannot be opened.
    MissingLog,
    /// A flashback read asked for a version DM8 no longer keeps.
    FlashbackExpired,
}

/// What a DM8 code means and what to do about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DmAdvice {
    pub code: i32,
    pub meaning: &'static str,
    pub advice: &'static str,
    pub class: DmClass,
    /// Retrying after a reconnect may succeed.
    pub transient: bool,
}

/// `dm-pure` raises this for every socket error: connect refused, host
/// unknown, timeout, a connection reset while reading.
pub const NETWORK: i32 = -6852;
/// 用户名或密码错误: invalid user name or password.
pub const BAD_LOGIN: i32 = -2501;
/// 无效的表或视图名: the table or view does not exist (or is not visible).
pub const NO_OBJECT: i32 = -2106;
/// 无法解析的成员访问表达式: a package member that cannot be resolved,
/// which is what a call into an uncreated `DBMS_LOGMNR` raises.
pub const NO_PACKAGE_MEMBER: i32 = -2207;
/// `[DBMS_LOGMNR.ADD_LOGFILE] 打开文件失败`: the log file cannot be opened.
pub const LOG_OPEN_FAILED: i32 = -4546;
/// 闪回版本已过期: the version a flashback query (`AS OF SCN`) asks for is
/// no longer kept: its undo is older than `UNDO_RETENTION`.
pub const FLASHBACK_EXPIRED: i32 = -9801;

const ADVICE: &[DmAdvice] = &[
    DmAdvice { code: NETWORK, meaning: "network error: no DM8 server answered, or the connection dropped", advice: "check host and port (DM8 listens on 5236 by default) and that dmserver runs; cdcctl reconnects after transient drops", class: DmClass::Connection, transient: true },
    DmAdvice { code: BAD_LOGIN, meaning: "invalid user name or password", advice: "check the user (DM8 compares user names exactly, case included); the password comes from CDCCTL_PASSWORD or the prompt on a terminal", class: DmClass::Login, transient: false },
    DmAdvice { code: NO_OBJECT, meaning: "invalid table or view name (it does not exist, or the user may not see it)", advice: "grant SELECT on the view (GRANT SELECT ON SYS.V$ARCH_FILE TO user) or check the name's case", class: DmClass::MissingObject, transient: false },
    DmAdvice { code: NO_PACKAGE_MEMBER, meaning: "a package member cannot be resolved: DBMS_LOGMNR is not created, or not granted", advice: "a DBA runs SP_CREATE_SYSTEM_PACKAGES(1, 'DBMS_LOGMNR') once and grants EXECUTE ON SYS.DBMS_LOGMNR to the capture user", class: DmClass::MissingPackage, transient: false },
    DmAdvice { code: LOG_OPEN_FAILED, meaning: "DBMS_LOGMNR cannot open the log file: it was removed from the archive destination, or it is an online redo file", advice: "restore the archived file into the archive destination, or take a new snapshot: changes in it cannot be captured; keep archives longer than the longest outage", class: DmClass::MissingLog, transient: false },
    DmAdvice { code: FLASHBACK_EXPIRED, meaning: "flashback version expired: the undo of the LSN a snapshot chunk reads AS OF was released", advice: "raise UNDO_RETENTION above one chunk's read (SP_SET_PARA_DOUBLE_VALUE(1, 'UNDO_RETENTION', 900)) and check ENABLE_FLASHBACK = 1; cdcctl reads the chunk again at a fresher LSN", class: DmClass::FlashbackExpired, transient: false },
];

/// Looks a DM8 code up in cdcctl's advice table.
pub fn dm_advice(code: i32) -> Option<&'static DmAdvice> {
    ADVICE.iter().find(|a| a.code == code)
}

/// Every code the table knows, for tests and help text.
pub fn known_dm_codes() -> impl Iterator<Item = &'static DmAdvice> {
    ADVICE.iter()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advice_table_has_no_duplicate_codes() {
        let mut codes: Vec<i32> = known_dm_codes().map(|a| a.code).collect();
        codes.sort_unstable();
        let n = codes.len();
        codes.dedup();
        assert_eq!(codes.len(), n);
    }
}
