//! Rows to the instance and session facts.

use std::collections::{BTreeMap, BTreeSet};

use crate::source::{
    Dialect, DmArchDest, DmFacts, InstanceFacts, PdbFacts, ProfileFacts, RecoveryArea,
    ServiceFacts, SessionFacts, SwitchHistory, YashanFacts, YstreamServer,
};

use super::file::*;
use super::read::*;

pub(super) fn instance_from(ev: &EvidenceFile) -> Result<InstanceFacts, String> {
    let mut i = InstanceFacts {
        dialect: ev.dialect,
        ..Default::default()
    };
    match ev.dialect {
        Dialect::Oracle => read_oracle_database(ev, &mut i)?,
        Dialect::Dm => read_dm_instance(ev, &mut i),
        Dialect::Yashandb => read_yashan_instance(ev, &mut i),
    }
    // DM8 and YashanDB have no NOW column: the database's clock when the
    // script ran is the file's collected_at.
    if i.now.is_none() {
        i.now = ev.collected_at.as_deref().and_then(parse_time);
    }
    if let Some(r) = ev.rows_or_empty("instance").first() {
        i.version = text(r, "VERSION_FULL")
            .or_else(|| text(r, "VERSION"))
            .unwrap_or_default();
        i.instance_name = text_or(r, "INSTANCE_NAME");
    }
    if let Some(r) = ev.rows_or_empty("version_banner").first() {
        i.banner = text_or(r, "BANNER");
    }
    for r in ev.rows_or_empty("parameters") {
        if let Some(v) = text(r, "VALUE") {
            i.parameters
                .insert(text_or(r, "NAME").to_ascii_lowercase(), v);
        }
    }
    read_containers(ev, &mut i);
    read_storage(ev, &mut i);
    Ok(i)
}

pub(super) fn read_oracle_database(ev: &EvidenceFile, i: &mut InstanceFacts) -> Result<(), String> {
    let db = ev
        .rows("database")?
        .first()
        .ok_or("V$DATABASE returned no row")?;
    i.db_name = text_or(db, "NAME");
    i.log_mode = text_or(db, "LOG_MODE");
    i.supplemental_log_data_min = text_or(db, "SUPPLEMENTAL_LOG_DATA_MIN");
    i.supplemental_log_data_pk = yes(db, "SUPPLEMENTAL_LOG_DATA_PK");
    i.supplemental_log_data_ui = yes(db, "SUPPLEMENTAL_LOG_DATA_UI");
    i.supplemental_log_data_all = yes(db, "SUPPLEMENTAL_LOG_DATA_ALL");
    i.force_logging = yes(db, "FORCE_LOGGING");
    i.database_role = text_or(db, "DATABASE_ROLE");
    i.open_mode = text_or(db, "OPEN_MODE");
    i.cdb = yes(db, "CDB");
    i.current_scn = num(db, "CURRENT_SCN").unwrap_or(0);
    i.now = time(db, "NOW");
    Ok(())
}

pub(super) fn read_dm_instance(ev: &EvidenceFile, i: &mut InstanceFacts) {
    if let Some(db) = ev.rows_or_empty("dm_database").first() {
        i.log_mode = if yes(db, "ARCH_MODE") {
            "ARCHIVELOG"
        } else {
            "NOARCHIVELOG"
        }
        .into();
    }
    let ini: BTreeMap<String, String> = ev
        .rows_or_empty("dm_ini")
        .iter()
        .map(|r| (text_or(r, "PARA_NAME"), text_or(r, "PARA_VALUE")))
        .collect();
    for (name, value) in &ini {
        i.parameters
            .insert(name.to_ascii_lowercase(), value.trim().to_string());
    }
    i.dm = Some(DmFacts {
        arch_ini: ini.get("ARCH_INI").cloned(),
        rlog_append_logic: ini.get("RLOG_APPEND_LOGIC").cloned(),
        logmnr_package_installed: ev
            .rows("dm_pkg")
            .ok()
            .and_then(|r| r.first())
            .map(|r| yes(r, "INSTALLED")),
        mpp: ini.get("MPP_INI").map(|v| v.trim() == "1"),
        dsc_nodes: ev
            .rows("dsc_ep_info")
            .ok()
            .map(|r| u32::try_from(r.len()).unwrap_or(u32::MAX)),
        arch_destinations: ev
            .rows_or_empty("dm_arch_ini")
            .iter()
            .map(|r| DmArchDest {
                arch_name: text_or(r, "ARCH_NAME"),
                arch_type: text_or(r, "ARCH_TYPE"),
                arch_dest: text_or(r, "ARCH_DEST"),
                arch_space_limit: num(r, "ARCH_SPACE_LIMIT").unwrap_or(0),
                arch_is_valid: yes(r, "ARCH_IS_VALID"),
            })
            .collect(),
    });
}

pub(super) fn read_yashan_instance(ev: &EvidenceFile, i: &mut InstanceFacts) {
    if let Some(db) = ev.rows_or_empty("ys_database").first() {
        i.log_mode = text_or(db, "LOG_MODE");
        i.supplemental_log_data_all = yes(db, "SUPPLEMENTAL_LOG_DATA_ALL");
    }
    i.yashan = Some(YashanFacts {
        stream_pool_size: ev
            .rows_or_empty("ys_parameters")
            .iter()
            .find(|r| text_or(r, "NAME").eq_ignore_ascii_case("STREAM_POOL_SIZE"))
            .and_then(|r| text(r, "VALUE")),
        servers: ev
            .rows_or_empty("ys_servers")
            .iter()
            .map(|r| YstreamServer {
                server_name: text_or(r, "SERVER_NAME"),
                status: text_or(r, "STATUS"),
                connect_user: text(r, "CONNECT_USER"),
                start_scn: num(r, "START_SCN"),
                error: text(r, "ERROR"),
            })
            .collect(),
    });
}

/// The PDBs and the services that lead to them.
pub(super) fn read_containers(ev: &EvidenceFile, i: &mut InstanceFacts) {
    i.pdbs = ev
        .rows_or_empty("pdbs")
        .iter()
        .map(|r| PdbFacts {
            name: text_or(r, "NAME"),
            con_id: num(r, "CON_ID").unwrap_or(0) as u32,
            open_mode: text_or(r, "OPEN_MODE"),
            restricted: yes(r, "RESTRICTED"),
            application_root: yes(r, "APPLICATION_ROOT"),
            application_pdb: yes(r, "APPLICATION_PDB"),
        })
        .collect();
    i.services = ev
        .rows_or_empty("services")
        .iter()
        .map(|r| ServiceFacts {
            name: text_or(r, "NAME"),
            network_name: text(r, "NETWORK_NAME"),
            pdb: text(r, "PDB"),
        })
        .collect();
}

/// Where redo and undo go: recovery area, archive destinations, undo,
/// encryption and the log switch history.
pub(super) fn read_storage(ev: &EvidenceFile, i: &mut InstanceFacts) {
    i.recovery_area = ev
        .rows_or_empty("recovery_area")
        .first()
        .map(|r| RecoveryArea {
            name: text_or(r, "NAME"),
            space_limit: num(r, "SPACE_LIMIT").unwrap_or(0),
            space_used: num(r, "SPACE_USED").unwrap_or(0),
            space_reclaimable: num(r, "SPACE_RECLAIMABLE").unwrap_or(0),
            number_of_files: num(r, "NUMBER_OF_FILES").unwrap_or(0),
            archived_log_reclaimable_pct: ev
                .rows_or_empty("recovery_area_usage")
                .iter()
                .find(|u| text_or(u, "FILE_TYPE") == "ARCHIVED LOG")
                .and_then(|u| float(u, "PERCENT_SPACE_RECLAIMABLE")),
        });
    i.failed_archive_dests = ev
        .rows_or_empty("archive_dest_failed")
        .iter()
        .map(|r| text_or(r, "DEST_NAME"))
        .collect();
    if let Some(r) = ev.rows_or_empty("undo_stat").first() {
        i.undo.tuned_undoretention_s = num(r, "TUNED_UNDORETENTION");
        i.undo.snapshot_too_old_errors = num(r, "SSOLDERRCNT").unwrap_or(0);
        i.undo.no_space_errors = num(r, "NOSPACEERRCNT").unwrap_or(0);
    }
    if let Some(r) = ev.rows_or_empty("undo_tablespaces").first() {
        i.undo.tablespace = text(r, "TABLESPACE_NAME");
        i.undo.retention_guarantee = text_or(r, "RETENTION") == "GUARANTEE";
        i.undo.autoextensible = yes(r, "AUTOEXTENSIBLE");
    }
    i.wallet_status = ev
        .rows_or_empty("wallet")
        .first()
        .and_then(|r| text(r, "STATUS"));
    i.encrypted_tablespaces = ev
        .rows_or_empty("encrypted_tablespaces")
        .iter()
        .map(|r| text_or(r, "TABLESPACE_NAME"))
        .collect();
    i.switch_history = ev
        .rows("log_switches")
        .ok()
        .and_then(|r| r.first())
        .map(|r| SwitchHistory {
            peak_per_hour: num(r, "PEAK_PER_HOUR").unwrap_or(0) as u32,
            hours_observed: num(r, "HOURS_OBSERVED").unwrap_or(0) as u32,
        });
}

pub(super) fn session_from(ev: &EvidenceFile) -> Result<SessionFacts, String> {
    let r = ev
        .rows("session")?
        .first()
        .ok_or("the session query returned no row")?;
    let mut s = SessionFacts {
        user: text_or(r, "USERNAME"),
        con_name: text_or(r, "CON_NAME"),
        service_name: text(r, "SERVICE_NAME"),
        ..Default::default()
    };
    s.privileges = ev
        .rows_or_empty("session_privs")
        .iter()
        .map(|r| text_or(r, "PRIVILEGE"))
        .collect();
    s.roles = ev
        .rows_or_empty("session_roles")
        .iter()
        .map(|r| text_or(r, "ROLE"))
        .collect();
    s.container_data = ev
        .rows_or_empty("container_data")
        .iter()
        .map(|r| {
            if yes(r, "ALL_CONTAINERS") {
                "ALL".to_string()
            } else {
                text_or(r, "CONTAINER_NAME")
            }
        })
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if let Some(u) = ev.rows_or_empty("user_account").first() {
        s.common_user = yes(u, "COMMON");
        s.default_tablespace = text(u, "DEFAULT_TABLESPACE");
        let limits: BTreeMap<String, String> = ev
            .rows_or_empty("user_profile")
            .iter()
            .map(|r| (text_or(r, "RESOURCE_NAME"), text_or(r, "LIMIT")))
            .collect();
        s.profile = Some(ProfileFacts {
            profile: text_or(u, "PROFILE"),
            idle_time: limits.get("IDLE_TIME").cloned(),
            connect_time: limits.get("CONNECT_TIME").cloned(),
            password_life_time: limits.get("PASSWORD_LIFE_TIME").cloned(),
            account_status: text(u, "ACCOUNT_STATUS"),
            expiry_date: time(u, "EXPIRY_DATE"),
        });
    }
    if let Ok(q) = ev.rows("user_quotas") {
        let ts = s.default_tablespace.clone().unwrap_or_default();
        s.has_quota = Some(q.iter().any(|r| text_or(r, "TABLESPACE_NAME") == ts));
    }
    s.inaccessible_objects = inaccessible_objects(ev);
    Ok(s)
}

/// The objects the collecting user could not read, with the error number
/// each probe or query met.
fn inaccessible_objects(ev: &EvidenceFile) -> BTreeMap<String, u32> {
    let mut denied = BTreeMap::new();
    // A refused CDB_CONTAINER_DATA is unknown, not empty.
    if let Some(QueryRows::Error { error }) = ev.queries.get("container_data") {
        let code = error
            .trim_start_matches("ORA-")
            .parse::<u32>()
            .unwrap_or(942);
        denied.insert("CDB_CONTAINER_DATA".into(), code);
    }
    for r in ev.rows_or_empty("object_access") {
        let code = num(r, "ORA_CODE").unwrap_or(0) as u32;
        if code != 0 {
            denied.insert(text_or(r, "OBJECT_NAME"), code);
        }
    }
    if ev.dialect == Dialect::Dm {
        // The DM8 script probes each view mining reads: a refused probe is
        // a missing grant.
        for (query, object) in [
            ("dm_probe_logmnr_contents", "V$LOGMNR_CONTENTS"),
            ("dm_probe_arch_file", "V$ARCH_FILE"),
            ("dm_probe_rlog", "V$RLOG"),
            ("dm_probe_trx", "V$TRX"),
            ("dm_ini", "V$DM_INI"),
        ] {
            if let Some(QueryRows::Error { error }) = ev.queries.get(query) {
                denied.insert(object.into(), error_code(error));
            }
        }
    }
    if ev.dialect == Dialect::Yashandb {
        // The YashanDB script reads these views in its own queries: a
        // refused one is a missing grant.
        for (query, object) in [
            ("ys_database", "V$DATABASE"),
            ("ys_transactions", "V$TRANSACTION"),
            ("ys_servers", "V$YSTREAM_SERVER"),
        ] {
            if let Some(QueryRows::Error { error }) = ev.queries.get(query) {
                denied.insert(object.into(), error_code(error));
            }
        }
    }
    denied
}

/// The number of a client's error text (`YAS-02012`, `[-2106]`), or 1
/// when it carries none.
pub(super) fn error_code(error: &str) -> u32 {
    let from = error.find("YAS-").map_or(0, |i| i + 4);
    let digits: String = error[from..]
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok().filter(|c| *c != 0).unwrap_or(1)
}
