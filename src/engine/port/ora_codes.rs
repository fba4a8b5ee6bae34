//! What each ORA- code capture can meet means for a CDC pipeline and what
//! to do about it: the advice and the retry decision of
//! [`SourceError`](super::SourceError) for Oracle's errors.

/// What an ORA- code means for a CDC pipeline and what to do about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OraAdvice {
    pub code: u32,
    pub meaning: &'static str,
    pub advice: &'static str,
    /// Retrying the same call may succeed (archiver lag, dropped connection).
    pub transient: bool,
}

const ADVICE: &[OraAdvice] = &[
    OraAdvice { code: 942, meaning: "table or view does not exist (or no privilege to see it)", advice: "grant SELECT on the view (GRANT SELECT ON V_$... TO user) or check the name's case", transient: false },
    OraAdvice { code: 1031, meaning: "insufficient privileges", advice: "run `cdcctl preflight` to list the missing grants (LOGMINING, SELECT ANY TRANSACTION, FLASHBACK)", transient: false },
    OraAdvice { code: 1017, meaning: "invalid username/password; logon denied", advice: "check the user; the password comes from CDCCTL_PASSWORD, the prompt on a terminal, or a wallet (oracle://@ALIAS)", transient: false },
    OraAdvice { code: 1089, meaning: "immediate shutdown or close in progress", advice: "wait for the instance to come back; cdcctl resumes from its checkpoint", transient: true },
    OraAdvice { code: 1291, meaning: "missing log file: a log LogMiner needs is not available", advice: "restore the archived log from backup (RMAN RESTORE ARCHIVELOG) or, if it is gone for good, take a new snapshot; keep archives longer than the longest outage", transient: false },
    OraAdvice { code: 1281, meaning: "SCN range specified is invalid: the window's end is below its start", advice: "redo up to the window's end is not written yet (an instance's log writer lags, or a RAC node is quiet); cdcctl waits and asks again", transient: true },
    OraAdvice { code: 1284, meaning: "file cannot be opened", advice: "run RMAN CROSSCHECK ARCHIVELOG ALL and restore or remove the missing entries", transient: true },
    OraAdvice { code: 1289, meaning: "cannot add duplicate log file", advice: "pin one archive destination (archive.destination.name / --archive-dest)", transient: false },
    OraAdvice { code: 310, meaning: "archived log contains the wrong sequence", advice: "an online log was reused (switched and overwritten) while it was being mined: capture fell a whole cycle of the online logs behind; it reads the archived copy on retry. If it recurs, add online log groups or make them larger so a log outlives a mining window", transient: true },
    OraAdvice { code: 1555, meaning: "snapshot too old: undo for the snapshot SCN was overwritten", advice: "raise UNDO_RETENTION above the snapshot's duration (ALTER SYSTEM SET UNDO_RETENTION = ...), add RETENTION GUARANTEE, or snapshot in smaller chunks", transient: false },
    OraAdvice { code: 8103, meaning: "object no longer exists: a segment changed data object id under the reader (TRUNCATE, MOVE, EXCHANGE or DROP PARTITION)", advice: "pause partition maintenance during the snapshot, pre-create interval partitions (ALTER TABLE ... SET INTERVAL ()), and retry the chunk", transient: true },
    OraAdvice { code: 8180, meaning: "no snapshot found based on specified time", advice: "the AS OF SCN is older than undo allows; restart the snapshot at a current SCN", transient: false },
    OraAdvice { code: 8181, meaning: "specified number is not a valid system change number", advice: "pass an SCN at or below CURRENT_SCN", transient: false },
    OraAdvice { code: 1466, meaning: "unable to read data: table definition has changed", advice: "DDL ran after the snapshot SCN; wait for it to settle and restart the snapshot", transient: true },
    OraAdvice { code: 44609, meaning: "CONTINUOUS_MINE is desupported for use with DBMS_LOGMNR.START_LOGMNR", advice: "do not ask for CONTINUOUS_MINE on 19c or later: set 'debezium.log.mining.continuous.mine' = 'false' (cdcctl adds log files itself)", transient: false },
    OraAdvice { code: 65040, meaning: "operation not allowed from within a pluggable database", advice: "on 12c-19c, mine from CDB$ROOT with a common user (C##...) and filter SRC_CON_NAME; connect to the root service, not the PDB's", transient: false },
    OraAdvice { code: 12514, meaning: "listener does not currently know of the service requested", advice: "use a SERVICE_NAME listed by `lsnrctl services` or V$SERVICES; for a PDB use its own service", transient: false },
    OraAdvice { code: 12505, meaning: "listener does not currently know of the SID", advice: "connect by service name rather than SID", transient: false },
    OraAdvice { code: 12541, meaning: "no listener at the given host and port", advice: "check host, port and that the listener runs", transient: true },
    OraAdvice { code: 3113, meaning: "end-of-file on communication channel", advice: "the connection dropped; cdcctl reconnects and resumes from the restart SCN", transient: true },
    OraAdvice { code: 3114, meaning: "not connected to ORACLE", advice: "the connection dropped; cdcctl reconnects and resumes from the restart SCN", transient: true },
    OraAdvice { code: 3135, meaning: "connection lost contact", advice: "the connection dropped; check firewalls' idle timeouts; cdcctl reconnects", transient: true },
    OraAdvice { code: 4036, meaning: "PGA memory exceeds PGA_AGGREGATE_LIMIT", advice: "end LogMiner sessions more often (smaller windows) or raise PGA_AGGREGATE_LIMIT", transient: true },
    OraAdvice { code: 28000, meaning: "the account is locked", advice: "unlock the user and give it a profile without FAILED_LOGIN_ATTEMPTS limits", transient: false },
    OraAdvice { code: 28001, meaning: "the password has expired", advice: "reset the password and give the user a profile with PASSWORD_LIFE_TIME UNLIMITED", transient: false },
    OraAdvice { code: 30036, meaning: "unable to extend segment in undo tablespace", advice: "grow the undo tablespace or make its datafiles autoextensible", transient: false },
    OraAdvice { code: 257, meaning: "archiver error: the archive destination is full", advice: "free the recovery area or raise db_recovery_file_dest_size; the database hangs until then", transient: true },
    OraAdvice { code: 19809, meaning: "limit exceeded for recovery files", advice: "raise db_recovery_file_dest_size or back up and delete archived logs", transient: false },
];

/// Looks a code up in cdcctl's advice table.
pub fn ora_advice(code: u32) -> Option<&'static OraAdvice> {
    ADVICE.iter().find(|a| a.code == code)
}

/// Every code the advice table knows, for help text and tests.
pub fn known_ora_codes() -> impl Iterator<Item = &'static OraAdvice> {
    ADVICE.iter()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ora_00310_advice_speaks_of_the_reused_online_log_it_means_issue35() {
        let a = ora_advice(310).map(|a| a.advice).unwrap_or_default();
        assert!(a.contains("online log") && a.contains("log groups"), "{a}");
        assert!(!a.contains("%r"), "{a}");
    }

    #[test]
    fn advice_table_has_no_duplicate_codes() {
        let mut codes: Vec<u32> = known_ora_codes().map(|a| a.code).collect();
        codes.sort_unstable();
        let n = codes.len();
        codes.dedup();
        assert_eq!(codes.len(), n);
    }
}
