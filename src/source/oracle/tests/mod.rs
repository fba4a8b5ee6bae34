//! Pins every statement the backend sends (insta snapshots under the
//! top-level `snapshots/`, files `oracle_*.snap`), and the behaviour that
//! needs no database: connecting without a client library, choosing a
//! snapshot key, cutting chunks.

use std::time::{Duration, Instant};

use super::sql::{self, BoundSql, SnapshotColumn, SnapshotKey, ValueKind};
use super::*;
use crate::source::{ContentsQuery, MiningOptions, SessionRequest};

macro_rules! snap {
    ($name:expr, $value:expr) => {
        insta::with_settings!({
            snapshot_path => "../../../../snapshots",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!($name, $value);
        })
    };
}

/// Oracle-maintained users as a 19c dictionary would list a few of them.
fn maintained() -> Vec<String> {
    ["APEX_230200", "GGSHAREDCAP", "SYS", "SYSTEM", "VECSYS"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

fn col(name: &str, kind: ValueKind) -> SnapshotColumn {
    SnapshotColumn {
        name: name.into(),
        kind,
    }
}

/// Breaks the long one-line statements at clause keywords so snapshot
/// diffs show which clause changed. Only the snapshot is formatted; the
/// statement sent stays one line.
fn pretty(sql: &str) -> String {
    let mut out = sql.to_string();
    for kw in [
        " FROM ",
        " WHERE ",
        " AND (",
        " ORDER BY ",
        " FETCH FIRST ",
        " JOIN ",
        " GROUP BY ",
    ] {
        out = out.replace(kw, &format!("\n{}", kw.trim_start()));
    }
    out
}

fn bound_text(b: &BoundSql) -> String {
    let mut s = pretty(&b.text);
    s.push_str("\n--\n");
    for (name, value) in &b.binds {
        match value {
            sql::BindValue::Text(t) => s.push_str(&format!(":{name} = '{t}'\n")),
            sql::BindValue::Number(n) => s.push_str(&format!(":{name} = {n}\n")),
        }
    }
    s
}

#[test]
fn session_settings_fix_the_literal_formats() {
    snap!("oracle_session_settings", sql::SESSION_SETTINGS.join("\n"));
}

#[test]
fn redo_source_statements_are_pinned() {
    let texts = [
        ("CURRENT_SCN", sql::CURRENT_SCN),
        ("RESETLOGS_CHANGE", sql::RESETLOGS_CHANGE),
        ("INCARNATION", sql::INCARNATION),
        ("ONLINE_LOGS", sql::ONLINE_LOGS),
        ("ARCHIVED_LOGS", sql::ARCHIVED_LOGS),
        ("ARCHIVED_LOGS_FROM", sql::ARCHIVED_LOGS_FROM),
        ("ARCHIVE_DESTS", sql::ARCHIVE_DESTS),
        ("THREADS", sql::THREADS),
        ("ADD_LOGFILE_NEW", sql::ADD_LOGFILE_NEW),
        ("ADD_LOGFILE_ADDFILE", sql::ADD_LOGFILE_ADDFILE),
        ("END_LOGMNR", sql::END_LOGMNR),
        ("SESSION_CONTAINER", sql::SESSION_CONTAINER),
        ("ROOT_CONTAINER", sql::ROOT_CONTAINER),
    ];
    let mut all: Vec<String> = texts
        .iter()
        .map(|(n, t)| format!("-- {n}\n{}\n", pretty(t)))
        .collect();
    all.push(format!(
        "-- set_container (12c+, a V$PDBS name)\n{}\n",
        sql::set_container("ORCLPDB1").unwrap_or_default()
    ));
    snap!("oracle_redo_statements", all.join("\n"));
}

#[test]
fn archived_logs_are_filtered_on_the_server_by_scn_and_destination_with_binds() {
    let text = sql::ARCHIVED_LOGS_FROM;
    assert!(text.contains("A.NEXT_CHANGE# > :from_scn"), "{text}");
    assert!(text.contains("A.DEST_ID = :dest_id"), "{text}");
    let bound = archived_logs_bound(4_711, 2);
    assert_eq!(bound.text, text);
    assert_eq!(
        bound.binds,
        vec![
            ("dest_id".to_string(), sql::BindValue::Number(2)),
            ("from_scn".to_string(), sql::BindValue::Number(4_711)),
        ]
    );
    snap!("oracle_archived_logs_from", bound_text(&bound));
}

#[test]
fn open_transactions_read_every_instance_on_a_cluster() {
    for major in [12, 19] {
        let (rac, rac_no_con) = sql::open_transactions_rac_statements(major);
        for text in [rac, rac_no_con] {
            assert!(text.contains("FROM GV$TRANSACTION T"), "{text}");
            assert!(text.contains("S.INST_ID = T.INST_ID"), "{text}");
        }
    }
    assert!(sql::open_transactions_rac_statements(19)
        .0
        .contains("CON_ID_TO_CON_NAME"));
    assert!(!sql::open_transactions_rac_statements(12)
        .0
        .contains("CON_ID_TO_CON_NAME"));
    for major in [11, 12, 19] {
        let single = catalog::open_transactions_sql(major);
        assert!(single.contains("FROM V$TRANSACTION T"), "{single}");
        assert!(single.contains("S.SADDR = T.SES_ADDR"), "{single}");
    }
    // Who holds each transaction: the session's program and machine, on
    // every release and on a cluster.
    for text in [
        sql::OPEN_TRANSACTIONS,
        sql::OPEN_TRANSACTIONS_12,
        sql::OPEN_TRANSACTIONS_NO_CON,
        sql::OPEN_TRANSACTIONS_RAC,
        sql::OPEN_TRANSACTIONS_RAC_NO_CON,
    ] {
        assert!(
            text.contains("S.USERNAME") && text.contains("S.PROGRAM, S.MACHINE"),
            "{text}"
        );
        // The session to kill: SID and SERIAL#, and the instance on a cluster.
        assert!(
            text.contains("TO_CHAR(S.SID), TO_CHAR(S.SERIAL#)"),
            "{text}"
        );
    }
    for text in [
        sql::OPEN_TRANSACTIONS_RAC,
        sql::OPEN_TRANSACTIONS_RAC_NO_CON,
    ] {
        assert!(text.contains("TO_CHAR(T.INST_ID) FROM"), "{text}");
    }
}

#[test]
fn catalog_statements_are_pinned() {
    let texts: Vec<(&str, String)> = vec![
        ("INSTANCE_DATABASE", sql::INSTANCE_DATABASE.into()),
        ("INSTANCE_CDB", sql::INSTANCE_CDB.into()),
        ("INSTANCE_VERSION_FULL", sql::INSTANCE_VERSION_FULL.into()),
        ("INSTANCE_VERSION", sql::INSTANCE_VERSION.into()),
        ("VERSION_BANNER", sql::VERSION_BANNER.into()),
        ("PARAMETERS", sql::PARAMETERS.into()),
        ("CHARACTER_SETS", sql::CHARACTER_SETS.into()),
        ("PDBS", sql::PDBS.into()),
        ("PDBS_12_1", sql::PDBS_12_1.into()),
        ("RECOVERY_AREA", sql::RECOVERY_AREA.into()),
        ("RECOVERY_AREA_ARCHIVED", sql::RECOVERY_AREA_ARCHIVED.into()),
        ("FAILED_ARCHIVE_DESTS", sql::FAILED_ARCHIVE_DESTS.into()),
        ("SERVICES", sql::SERVICES.into()),
        ("SERVICES_11G", sql::SERVICES_11G.into()),
        ("UNDO_TABLESPACE", sql::UNDO_TABLESPACE.into()),
        ("UNDO_STATS", sql::UNDO_STATS.into()),
        ("WALLET_STATUS", sql::WALLET_STATUS.into()),
        ("ENCRYPTED_TABLESPACES", sql::ENCRYPTED_TABLESPACES.into()),
        ("SWITCH_HISTORY", sql::SWITCH_HISTORY.into()),
        ("SESSION_CONTEXT", sql::SESSION_CONTEXT.into()),
        ("SESSION_CONTEXT_11G", sql::SESSION_CONTEXT_11G.into()),
        ("SESSION_PRIVS", sql::SESSION_PRIVS.into()),
        ("SESSION_ROLES", sql::SESSION_ROLES.into()),
        ("USER_ACCOUNT", sql::USER_ACCOUNT.into()),
        ("USER_PROFILE", sql::USER_PROFILE.into()),
        ("USER_COMMON", sql::USER_COMMON.into()),
        ("USER_QUOTA", sql::USER_QUOTA.into()),
        ("PROFILE_LIMITS", sql::PROFILE_LIMITS.into()),
        ("CONTAINER_DATA", sql::CONTAINER_DATA.into()),
        (
            "TABLES_MATCHING (12c+, dictionary list)",
            sql::tables_matching("%", "%", &maintained()).to_string(),
        ),
        (
            "TABLES_MATCHING (11g, built-in list)",
            sql::tables_matching("APP", "ORD%", &sql::builtin_oracle_schemas()).to_string(),
        ),
        ("TABLE_COLUMNS", sql::TABLE_COLUMNS.into()),
        ("TABLE_COLUMNS_11G", sql::TABLE_COLUMNS_11G.into()),
        ("TABLE_EXTENTS", sql::TABLE_EXTENTS.into()),
        ("TABLE_SEGMENT_IDS", sql::TABLE_SEGMENT_IDS.into()),
        ("SESSION_MEMORY", sql::SESSION_MEMORY.into()),
        ("SESSION_UGA", sql::SESSION_UGA.into()),
        ("RECENT_LOG_SWITCHES", sql::RECENT_LOG_SWITCHES.into()),
        (
            "ORACLE_MAINTAINED_USERS",
            sql::ORACLE_MAINTAINED_USERS.into(),
        ),
        ("TABLE_KEYS", sql::TABLE_KEYS.into()),
        ("TABLE_INDEXES", sql::TABLE_INDEXES.into()),
        (
            "TABLE_UNUSABLE_INDEX_PARTITIONS",
            sql::TABLE_UNUSABLE_INDEX_PARTITIONS.into(),
        ),
        ("TABLE_LOG_GROUPS", sql::TABLE_LOG_GROUPS.into()),
        (
            "PARTITION_SEGMENT_BYTES",
            sql::PARTITION_SEGMENT_BYTES.into(),
        ),
        ("TABLE_PARTITIONING", sql::TABLE_PARTITIONING.into()),
        ("TABLE_PARTITIONS", sql::TABLE_PARTITIONS.into()),
        ("TABLE_PARTITIONS_11G", sql::TABLE_PARTITIONS_11G.into()),
        ("TABLE_SEGMENT_BYTES", sql::TABLE_SEGMENT_BYTES.into()),
        ("TABLE_ENCRYPTED", sql::TABLE_ENCRYPTED.into()),
        ("TABLE_GRANTS", sql::TABLE_GRANTS.into()),
        (
            "FLASHBACK_PROBE",
            sql::flashback_probe("APP", "ORDERS").unwrap_or_default(),
        ),
        ("OPEN_TRANSACTIONS", sql::OPEN_TRANSACTIONS.into()),
        ("OPEN_TRANSACTIONS_12", sql::OPEN_TRANSACTIONS_12.into()),
        (
            "OPEN_TRANSACTIONS_NO_CON",
            sql::OPEN_TRANSACTIONS_NO_CON.into(),
        ),
        ("OPEN_TRANSACTIONS_RAC", sql::OPEN_TRANSACTIONS_RAC.into()),
        (
            "OPEN_TRANSACTIONS_RAC_NO_CON",
            sql::OPEN_TRANSACTIONS_RAC_NO_CON.into(),
        ),
        ("CLUSTER_DATABASE", sql::CLUSTER_DATABASE.into()),
    ];
    let mut out: Vec<String> = texts
        .iter()
        .map(|(n, t)| format!("-- {n}\n{}\n", pretty(t)))
        .collect();
    for (object, probe) in sql::PROBED_OBJECTS
        .iter()
        .chain(std::iter::once(&sql::PROBE_DBMS_LOGMNR))
    {
        out.push(format!("-- probe {object}\n{probe}\n"));
    }
    snap!("oracle_catalog_statements", out.join("\n"));
}

#[test]
fn connect_without_instant_client_fails_fast_with_install_advice() {
    let options = ConnectOptions::new(
        "oracle://c##cdcctl@localhost:1521/FREE",
        Some(Password::new("not-used")),
    )
    .expect("valid address");
    let started = Instant::now();
    let result = OracleSource::connect(options);
    let elapsed = started.elapsed();
    let Err(err) = result else {
        // An Oracle client is installed here: the DPI-1047 path cannot be exercised.
        eprintln!("skipped: an Oracle client library is installed on this machine");
        return;
    };
    if !matches!(err, SourceError::NoClientLibrary(_)) {
        // A client exists but no database listens: also not this test's path.
        eprintln!("skipped: a client library loaded ({err})");
        return;
    }
    let text = err.to_string();
    assert!(text.contains("DPI-1047"), "{text}");
    let advice = err.advice().unwrap_or_default();
    assert!(advice.contains("Instant Client") && advice.contains("--source sim"));
    assert!(
        !err.is_transient(),
        "retrying cannot load a missing library"
    );
    // Loading the library is a local dlopen; no network wait may hide in it.
    assert!(elapsed < Duration::from_secs(2), "took {elapsed:?}");
}

#[test]
fn connect_without_password_names_the_password_sources() {
    let options = ConnectOptions::new("oracle://app@localhost/FREE", None).expect("valid address");
    let err = OracleSource::connect(options).expect_err("no password given");
    let text = err.to_string();
    assert!(matches!(err, SourceError::NoPassword(_)), "{err:?}");
    assert!(text.contains("CDCCTL_PASSWORD"), "{text}");
}

#[test]
fn bad_address_is_invalid_config() {
    let err =
        ConnectOptions::new("oracle://app:pw@localhost/FREE", None).expect_err("password in url");
    assert!(matches!(err, SourceError::Invalid(_)));
    assert!(err.to_string().contains("CDCCTL_PASSWORD"));
}

#[test]
fn wallet_address_needs_no_password_and_a_user_address_asks_once() {
    let wallet = ConnectOptions::new("oracle://@PRODW", None).expect("valid");
    assert!(!wallet.needs_password());
    let wallet = wallet.resolve_password(|_| panic!("a wallet address must not prompt"));
    assert!(wallet.password.is_none());

    let given = ConnectOptions::new("oracle://app@localhost/FREE", Some(Password::new("x")))
        .expect("valid");
    assert!(!given.needs_password());

    let missing = ConnectOptions::new("oracle://app@localhost/FREE", None).expect("valid");
    assert!(missing.needs_password());
    if std::env::var(PASSWORD_ENV).is_err() {
        let mut asked = Vec::new();
        let resolved = missing.resolve_password(|user| {
            asked.push(user.to_string());
            Some(Password::new("typed"))
        });
        assert_eq!(asked, vec!["APP".to_string()]);
        assert_eq!(resolved.password, Some(Password::new("typed")));
    }
}

#[test]
fn every_catalog_query_selects_as_many_columns_as_its_mapping_reads() {
    let cases: &[(&str, String, usize)] = &[
        ("CURRENT_SCN", sql::CURRENT_SCN.into(), 2),
        ("ONLINE_LOGS", sql::ONLINE_LOGS.into(), 11),
        ("ARCHIVED_LOGS", sql::ARCHIVED_LOGS.into(), 13),
        ("ARCHIVED_LOGS_FROM", sql::ARCHIVED_LOGS_FROM.into(), 13),
        ("ARCHIVE_DESTS", sql::ARCHIVE_DESTS.into(), 5),
        ("THREADS", sql::THREADS.into(), 8),
        ("INSTANCE_DATABASE", sql::INSTANCE_DATABASE.into(), 11),
        ("PDBS", sql::PDBS.into(), 6),
        ("PDBS_12_1", sql::PDBS_12_1.into(), 6),
        ("RECOVERY_AREA", sql::RECOVERY_AREA.into(), 5),
        ("SERVICES", sql::SERVICES.into(), 3),
        ("SERVICES_11G", sql::SERVICES_11G.into(), 3),
        ("UNDO_TABLESPACE", sql::UNDO_TABLESPACE.into(), 3),
        ("UNDO_STATS", sql::UNDO_STATS.into(), 3),
        ("SWITCH_HISTORY", sql::SWITCH_HISTORY.into(), 2),
        ("SESSION_CONTEXT", sql::SESSION_CONTEXT.into(), 3),
        ("SESSION_CONTEXT_11G", sql::SESSION_CONTEXT_11G.into(), 3),
        ("USER_ACCOUNT", sql::USER_ACCOUNT.into(), 3),
        ("PROFILE_LIMITS", sql::PROFILE_LIMITS.into(), 2),
        (
            "TABLES_MATCHING",
            sql::tables_matching("%", "%", &maintained()).text,
            11,
        ),
        ("TABLE_COLUMNS", sql::TABLE_COLUMNS.into(), 10),
        ("TABLE_COLUMNS_11G", sql::TABLE_COLUMNS_11G.into(), 10),
        ("TABLE_EXTENTS", sql::TABLE_EXTENTS.into(), 5),
        ("TABLE_SEGMENT_IDS", sql::TABLE_SEGMENT_IDS.into(), 1),
        ("SESSION_MEMORY", sql::SESSION_MEMORY.into(), 3),
        ("SESSION_UGA", sql::SESSION_UGA.into(), 1),
        ("RECENT_LOG_SWITCHES", sql::RECENT_LOG_SWITCHES.into(), 3),
        ("SESSION_CONTAINER", sql::SESSION_CONTAINER.into(), 2),
        ("TABLE_KEYS", sql::TABLE_KEYS.into(), 4),
        ("TABLE_INDEXES", sql::TABLE_INDEXES.into(), 7),
        (
            "TABLE_UNUSABLE_INDEX_PARTITIONS",
            sql::TABLE_UNUSABLE_INDEX_PARTITIONS.into(),
            2,
        ),
        ("TABLE_LOG_GROUPS", sql::TABLE_LOG_GROUPS.into(), 3),
        ("TABLE_PARTITIONING", sql::TABLE_PARTITIONING.into(), 4),
        ("TABLE_PARTITIONS", sql::TABLE_PARTITIONS.into(), 10),
        ("TABLE_PARTITIONS_11G", sql::TABLE_PARTITIONS_11G.into(), 10),
        (
            "PARTITION_SEGMENT_BYTES",
            sql::PARTITION_SEGMENT_BYTES.into(),
            2,
        ),
        ("OPEN_TRANSACTIONS", sql::OPEN_TRANSACTIONS.into(), 11),
        ("OPEN_TRANSACTIONS_12", sql::OPEN_TRANSACTIONS_12.into(), 11),
        (
            "OPEN_TRANSACTIONS_NO_CON",
            sql::OPEN_TRANSACTIONS_NO_CON.into(),
            11,
        ),
        (
            "OPEN_TRANSACTIONS_RAC",
            sql::OPEN_TRANSACTIONS_RAC.into(),
            11,
        ),
        (
            "OPEN_TRANSACTIONS_RAC_NO_CON",
            sql::OPEN_TRANSACTIONS_RAC_NO_CON.into(),
            11,
        ),
        ("CLUSTER_DATABASE", sql::CLUSTER_DATABASE.into(), 1),
    ];
    for (name, text, want) in cases {
        let items = select_items(text);
        assert_eq!(items.len(), *want, "{name}: {items:?}");
    }
}

#[test]
fn container_switch_quotes_the_pdb_name_and_refuses_unquotable_ones() {
    assert_eq!(
        sql::set_container("ORCLPDB1").as_deref(),
        Some("ALTER SESSION SET CONTAINER = \"ORCLPDB1\"")
    );
    assert_eq!(
        sql::set_container("Sales").as_deref(),
        Some("ALTER SESSION SET CONTAINER = \"Sales\"")
    );
    assert!(sql::set_container("X\" CONTAINER = CDB$ROOT --").is_none());
    assert!(sql::set_container("").is_none());
}

#[test]
fn an_unreadable_online_member_is_replaced_by_the_next_member_of_its_group() {
    let group = vec![
        "/u01/redo01a.log".to_string(),
        "/u02/redo01b.log".to_string(),
    ];
    let members: HashMap<String, Vec<String>> =
        group.iter().map(|m| (m.clone(), group.clone())).collect();
    assert_eq!(
        member_candidates("/u01/redo01a.log", &members),
        ["/u01/redo01a.log", "/u02/redo01b.log"]
    );
    assert_eq!(
        member_candidates("/arch/1_42.arc", &members),
        ["/arch/1_42.arc"],
        "an archived log has no other member"
    );
    assert!(UNREADABLE_MEMBER.contains(&1284) && UNREADABLE_MEMBER.contains(&313));
}

/// The items of the outermost select list, split at top-level commas.
fn select_items(sql: &str) -> Vec<String> {
    let body = sql.strip_prefix("SELECT ").unwrap_or(sql);
    let mut items = Vec::new();
    let (mut depth, mut in_str, mut start) = (0i32, false, 0usize);
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\'' => in_str = !in_str,
            b'(' if !in_str => depth += 1,
            b')' if !in_str => depth -= 1,
            b',' if !in_str && depth == 0 => {
                items.push(body[start..i].trim().to_string());
                start = i + 1;
            }
            b' ' if !in_str && depth == 0 && body[i..].starts_with(" FROM ") => {
                items.push(body[start..i].trim().to_string());
                return items;
            }
            _ => {}
        }
        i += 1;
    }
    items.push(body[start..].trim().to_string());
    items
}

mod contents;
mod snapshot;
