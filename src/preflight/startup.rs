//! The instance facts `run` and `tail` check before they capture: the
//! ones preflight fails on that make capture give nothing (it must stop,
//! exit 4) or lose changes (it must say so, then go on). Without them a
//! capture that can read nothing shows healthy status lines for ever.

use crate::source::{Dialect, InstanceFacts};

/// One fact about the instance, with what to run about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    pub message: String,
    pub advice: String,
}

/// What the instance allows a capture.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Viability {
    /// Capture cannot give a single change here.
    pub stop: Option<Condition>,
    /// Capture works but loses or degrades changes.
    pub warnings: Vec<Condition>,
}

fn condition(message: &str, advice: &str) -> Condition {
    Condition {
        message: message.to_string(),
        advice: advice.to_string(),
    }
}

/// Why an initial snapshot cannot be read on `instance`, if it cannot.
/// DM8 reads each chunk with a flashback query (`AS OF SCN lsn`), which
/// needs `ENABLE_FLASHBACK = 1` (off by default) and undo kept over one
/// chunk's read (`UNDO_RETENTION`, 90 s by default); without flashback it
/// would fail at the first chunk, or with an unreadable `V$DM_INI` it may.
/// Oracle's flashback needs no switch.
pub fn snapshot_stop(instance: &InstanceFacts) -> Option<Condition> {
    if instance.dialect != Dialect::Dm {
        return None;
    }
    let advice = "as SYSDBA: SP_SET_PARA_VALUE(1, 'ENABLE_FLASHBACK', 1); \
                  SP_SET_PARA_DOUBLE_VALUE(1, 'UNDO_RETENTION', 900); (both dynamic), or pass \
                  --snapshot never to stream from the current position without reading the \
                  tables";
    match instance.parameter("enable_flashback").map(str::trim) {
        Some("1") => None,
        Some(v) => Some(condition(
            &format!(
                "ENABLE_FLASHBACK = {v}: DM8 keeps no earlier version of a row, so the initial \
                 snapshot's flashback reads (AS OF SCN) cannot be made"
            ),
            advice,
        )),
        None => Some(condition(
            "cannot tell whether DM8's flashback is on (V$DM_INI is not readable): the initial \
             snapshot reads each chunk AS OF SCN and needs ENABLE_FLASHBACK = 1",
            &format!("GRANT SELECT ON SYS.V$DM_INI TO the capture user; {advice}"),
        )),
    }
}

/// Judges `instance` for a capture.
pub fn viability(instance: &InstanceFacts) -> Viability {
    match instance.dialect {
        Dialect::Dm => dm(instance),
        _ => oracle(instance),
    }
}

fn dm(i: &InstanceFacts) -> Viability {
    let d = i.dm.as_ref();
    let logic = d
        .and_then(|d| d.rlog_append_logic.as_deref())
        .map(str::trim);
    let arch_ini = d.and_then(|d| d.arch_ini.as_deref()).map(str::trim);
    // DM8 mines archive files only, and only what logical logging wrote.
    let stop = if logic == Some("0") {
        Some(condition(
            "RLOG_APPEND_LOGIC = 0: DM8 writes no logical log, so V$LOGMNR_CONTENTS stays empty \
             and nothing can be captured",
            "as SYSDBA: SP_SET_PARA_VALUE(1, 'RLOG_APPEND_LOGIC', 2); (full before images), then \
             start again; changes made before it cannot be captured",
        ))
    } else if i.log_mode == "NOARCHIVELOG" || arch_ini == Some("0") {
        Some(condition(
            "DM8 does not archive its redo (ARCH_MODE = N or ARCH_INI = 0): DBMS_LOGMNR mines \
             archive files only, so nothing can be captured",
            "ALTER DATABASE MOUNT; ALTER DATABASE ARCHIVELOG; ALTER DATABASE ADD ARCHIVELOG \
             'DEST=/dm8/arch, TYPE=LOCAL, FILE_SIZE=1024, SPACE_LIMIT=102400'; ALTER DATABASE OPEN;",
        ))
    } else {
        dsc(d)
    };
    Viability {
        stop,
        warnings: Vec::new(),
    }
}

/// A DMDSC cluster: every node writes and archives its own redo, and
/// `V$TRX` lists the transactions of the node asked (Dameng's DSC manual
/// keeps the cluster-wide list in `V$DSC_TRX`), so a capture through one
/// node would miss the others' changes and take their open transactions
/// for rolled back.
fn dsc(d: Option<&crate::source::DmFacts>) -> Option<Condition> {
    let nodes = d.and_then(|d| d.dsc_nodes).filter(|&n| n > 0)?;
    Some(Condition {
        message: format!(
            "a DMDSC cluster of {nodes} node(s) (V$DSC_EP_INFO): each node archives its own redo \
             and V$TRX lists one node's transactions, which cdcctl does not merge yet, so it would \
             miss changes made on the other nodes"
        ),
        advice: "capture from a single-instance DM8, e.g. a data-guard standby of this cluster \
                 that archives the merged redo, until cdcctl supports DMDSC"
            .into(),
    })
}

fn oracle(i: &InstanceFacts) -> Viability {
    let mut warnings = Vec::new();
    if i.log_mode == "NOARCHIVELOG" {
        warnings.push(condition(
            "the database is in NOARCHIVELOG mode: capture reads the online logs only, and redo \
             overwritten before it is read (an outage or lag longer than one cycle of the online \
             logs) is lost for good",
            "SHUTDOWN IMMEDIATE; STARTUP MOUNT; ALTER DATABASE ARCHIVELOG; ALTER DATABASE OPEN;",
        ));
    }
    if !matches!(
        i.supplemental_log_data_min.as_str(),
        "YES" | "IMPLICIT" | ""
    ) {
        warnings.push(condition(
            "minimal supplemental logging is off: LogMiner cannot rebuild UPDATEs of chained or \
             migrated rows, and before images lack the key",
            "ALTER DATABASE ADD SUPPLEMENTAL LOG DATA; then per table ALTER TABLE ... ADD \
             SUPPLEMENTAL LOG DATA (ALL) COLUMNS;",
        ));
    }
    Viability {
        stop: None,
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::DmFacts;

    fn dm_instance(logic: &str, arch: &str) -> InstanceFacts {
        InstanceFacts {
            dialect: Dialect::Dm,
            log_mode: "ARCHIVELOG".into(),
            supplemental_log_data_min: "NO".into(),
            dm: Some(DmFacts {
                rlog_append_logic: Some(logic.into()),
                arch_ini: Some(arch.into()),
                ..DmFacts::default()
            }),
            ..InstanceFacts::default()
        }
    }

    #[test]
    fn dm8_without_logical_logging_or_archiving_cannot_capture_and_healthy_dm8_can_issue34() {
        let stop = viability(&dm_instance("0", "1")).stop.expect("a stop");
        assert!(stop.message.contains("RLOG_APPEND_LOGIC = 0"));
        assert!(stop
            .advice
            .contains("SP_SET_PARA_VALUE(1, 'RLOG_APPEND_LOGIC', 2)"));
        let stop = viability(&dm_instance("2", "0")).stop.expect("a stop");
        assert!(stop.message.contains("archive"), "{}", stop.message);
        // DM8 reports no supplemental logging in Oracle's terms: no warning.
        assert_eq!(viability(&dm_instance("2", "1")), Viability::default());
    }

    #[test]
    fn a_dmdsc_cluster_stops_capture_with_advice_and_a_single_instance_does_not_issue34() {
        let mut i = dm_instance("2", "1");
        if let Some(d) = i.dm.as_mut() {
            d.dsc_nodes = Some(2);
        }
        let stop = viability(&i).stop.expect("a stop");
        assert!(
            stop.message.contains("DMDSC cluster of 2"),
            "{}",
            stop.message
        );
        assert!(stop.advice.contains("single-instance"), "{}", stop.advice);
        if let Some(d) = i.dm.as_mut() {
            d.dsc_nodes = Some(0);
        }
        assert_eq!(viability(&i), Viability::default());
    }

    #[test]
    fn oracle_in_noarchivelog_or_without_minimal_supplemental_logging_captures_with_a_warning_issue34(
    ) {
        let i = InstanceFacts {
            log_mode: "NOARCHIVELOG".into(),
            supplemental_log_data_min: "NO".into(),
            ..InstanceFacts::default()
        };
        let v = viability(&i);
        assert!(v.stop.is_none());
        assert_eq!(v.warnings.len(), 2, "{v:?}");
        let healthy = InstanceFacts {
            log_mode: "ARCHIVELOG".into(),
            supplemental_log_data_min: "YES".into(),
            ..InstanceFacts::default()
        };
        assert_eq!(viability(&healthy), Viability::default());
    }
}
