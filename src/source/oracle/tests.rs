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
            snapshot_path => "../../../snapshots",
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

/// A session over SCNs 1000..=2000 with the options the planner asks for.
fn planner_request(files: &[&str]) -> SessionRequest {
    SessionRequest {
        log_files: files.iter().map(|f| f.to_string()).collect(),
        start_scn: 1_000,
        end_scn: 2_000,
        options: MiningOptions {
            dict_from_online_catalog: true,
            no_rowid_in_stmt: true,
            ..Default::default()
        },
    }
}

#[test]
fn start_logmnr_spells_each_option_as_a_constant() {
    let base = planner_request(&["/u01/redo01.log"]);
    let mut out = String::new();
    out.push_str("-- planner default\n");
    out.push_str(&bound_text(&start_logmnr_bound(&base)));
    let mut all = base.clone();
    all.options.committed_data_only = true;
    all.options.continuous_mine = true;
    out.push_str("\n-- every option\n");
    out.push_str(&bound_text(&start_logmnr_bound(&all)));
    let mut none = base;
    none.options = MiningOptions::default();
    out.push_str("\n-- no option\n");
    out.push_str(&bound_text(&start_logmnr_bound(&none)));
    snap!("oracle_start_logmnr", out);
}

#[test]
fn continuous_mine_is_sent_only_when_asked() {
    let text = sql::start_logmnr(&MiningOptions {
        dict_from_online_catalog: true,
        ..Default::default()
    });
    assert!(!text.contains("CONTINUOUS_MINE"));
    assert!(text.contains(":start_scn") && text.contains(":end_scn"));
}

#[test]
fn contents_query_all_owners_on_19c() {
    let q = ContentsQuery {
        from_scn: 100,
        to_scn: 200,
        owners: vec![],
        pdb: None,
    };
    snap!(
        "oracle_contents_all_owners",
        bound_text(&sql::contents_query(&q, 19, &maintained()))
    );
}

#[test]
fn contents_query_binds_owners_and_pdb() {
    let q = ContentsQuery {
        from_scn: 100,
        to_scn: 200,
        owners: vec!["APP".into(), "it's".into()],
        pdb: Some("FREEPDB1".into()),
    };
    let b = sql::contents_query(&q, 19, &maintained());
    assert!(
        !b.text.contains("it's"),
        "owner pasted into SQL: {}",
        b.text
    );
    snap!("oracle_contents_owners_pdb", bound_text(&b));
}

#[test]
fn contents_query_on_11g_reads_no_container() {
    let q = ContentsQuery {
        from_scn: 1,
        to_scn: 2,
        owners: vec!["APP".into()],
        pdb: None,
    };
    let b = sql::contents_query(&q, 11, &sql::builtin_oracle_schemas());
    assert!(!b.text.contains("SRC_CON_NAME"));
    snap!("oracle_contents_11g", bound_text(&b));
}

#[test]
fn contents_query_never_orders() {
    let q = ContentsQuery {
        from_scn: 1,
        to_scn: 2,
        owners: vec!["APP".into()],
        pdb: Some("P".into()),
    };
    for v in [11, 12, 19, 23] {
        assert!(!sql::contents_query(&q, v, &maintained())
            .text
            .contains("ORDER BY"));
    }
}

#[test]
fn contents_query_splits_owner_lists_at_1000() {
    let q = ContentsQuery {
        from_scn: 1,
        to_scn: 2,
        owners: (0..1001).map(|i| format!("O{i}")).collect(),
        pdb: None,
    };
    let b = sql::contents_query(&q, 19, &maintained());
    assert_eq!(b.text.matches("SEG_OWNER IN (").count(), 2);
    assert_eq!(b.binds.len(), 2 + 1001);
    assert!(b.text.contains(":owner1001)"));
}

fn read<'a>(
    owner: &'a str,
    table: &'a str,
    columns: &'a [SnapshotColumn],
    key: &'a SnapshotKey,
    after_key: Option<&'a [String]>,
    limit: usize,
) -> sql::SnapshotRead<'a> {
    sql::SnapshotRead {
        owner,
        table,
        columns,
        key,
        after_key,
        limit,
        as_of_scn: 777,
        extent: None,
    }
}

fn orders_columns() -> Vec<SnapshotColumn> {
    vec![
        col("ORDER_ID", ValueKind::Number),
        col("LINE", ValueKind::Number),
        col("STATUS", ValueKind::Text),
        col("ORDER_DATE", ValueKind::Date),
        col("UPDATED", ValueKind::Timestamp),
        col("AT_TZ", ValueKind::TimestampTz),
        col("TAG", ValueKind::Raw),
        col("PHOTO", ValueKind::Blob),
    ]
}

#[test]
fn snapshot_chunk_statements_are_pinned() {
    let columns = orders_columns();
    let key = SnapshotKey::Columns(vec![
        col("ORDER_ID", ValueKind::Number),
        col("LINE", ValueKind::Number),
    ]);
    let after = vec!["1001".to_string(), "3".to_string()];
    let mut out = String::new();
    let cases: [(&str, Option<&[String]>, &SnapshotKey, u32); 5] = [
        ("first chunk, 19c", None, &key, 19),
        ("next chunk, 19c", Some(&after), &key, 19),
        ("next chunk, 11g", Some(&after), &key, 11),
        ("rowid key, first chunk", None, &SnapshotKey::RowId, 19),
        (
            "rowid key, next chunk",
            Some(&after[..1]),
            &SnapshotKey::RowId,
            19,
        ),
    ];
    for (title, after_key, key, version) in cases {
        let read = read("APP", "ORDERS", &columns, key, after_key, 5000);
        let b = sql::snapshot_chunk(&read, version).expect("quotable names");
        out.push_str(&format!("-- {title}\n{}\n", bound_text(&b)));
    }
    snap!("oracle_snapshot_chunk", out);
}

#[test]
fn snapshot_chunk_refuses_unquotable_names() {
    let columns = vec![col("A", ValueKind::Number)];
    let key = SnapshotKey::Columns(columns.clone());
    let bad_table = read("APP", "X\"; DROP", &columns, &key, None, 1);
    assert!(sql::snapshot_chunk(&bad_table, 19).is_none());
    let bad_column = [col("B\"", ValueKind::Text)];
    assert!(sql::snapshot_chunk(&read("APP", "T", &bad_column, &key, None, 1), 19).is_none());
}

#[test]
fn snapshot_key_values_are_bound_not_pasted() {
    let columns = vec![col("NAME", ValueKind::Text)];
    let key = SnapshotKey::Columns(columns.clone());
    let after = vec!["O'Brien) OR 1=1 --".to_string()];
    let b = sql::snapshot_chunk(&read("APP", "T", &columns, &key, Some(&after), 10), 19)
        .expect("quotable");
    assert!(!b.text.contains("O'Brien"));
    assert!(b
        .binds
        .iter()
        .any(|(n, v)| n == "k1" && *v == sql::BindValue::Text(after[0].clone())));
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
    assert!(matches!(err, SourceError::Authentication(_)), "{err:?}");
    assert!(text.contains("CDCCTL_PASSWORD"), "{text}");
}

#[test]
fn bad_address_is_invalid_config() {
    let err =
        ConnectOptions::new("oracle://app:pw@localhost/FREE", None).expect_err("password in url");
    assert!(matches!(err, SourceError::Invalid(_)));
    assert!(err.to_string().contains("CDCCTL_PASSWORD"));
}

fn text_rows(rows: &[&[Option<&str>]]) -> Vec<Vec<Option<String>>> {
    rows.iter()
        .map(|r| r.iter().map(|v| v.map(str::to_string)).collect())
        .collect()
}

fn orders() -> TableName {
    TableName {
        owner: "APP".into(),
        table: "ORDERS".into(),
    }
}

#[test]
fn snapshot_key_prefers_the_primary_key() {
    let cols = text_rows(&[
        &[
            Some("ID"),
            Some("NUMBER"),
            None,
            Some("N"),
            None,
            None,
            None,
            Some("NO"),
            Some("NO"),
            Some("NO"),
        ],
        &[
            Some("REF"),
            Some("VARCHAR2"),
            None,
            Some("N"),
            None,
            None,
            None,
            Some("NO"),
            Some("NO"),
            Some("NO"),
        ],
        &[
            Some("SYS_NC0001$"),
            Some("NUMBER"),
            None,
            Some("Y"),
            None,
            None,
            None,
            Some("YES"),
            Some("YES"),
            Some("NO"),
        ],
    ]);
    let keys = text_rows(&[
        &[Some("PK"), Some("P"), Some("ENABLED"), Some("ID")],
        &[Some("UK"), Some("U"), Some("ENABLED"), Some("REF")],
    ]);
    let meta = snapshot_meta_from_rows(&orders(), &cols, &keys).unwrap();
    assert_eq!(meta.columns.len(), 2, "hidden columns are left out");
    assert_eq!(
        meta.key,
        SnapshotKey::Columns(vec![col("ID", ValueKind::Number)])
    );
}

#[test]
fn snapshot_key_falls_back_to_not_null_unique_then_rowid() {
    let cols = text_rows(&[
        &[
            Some("A"),
            Some("NUMBER"),
            None,
            Some("Y"),
            None,
            None,
            None,
            Some("NO"),
            Some("NO"),
            Some("NO"),
        ],
        &[
            Some("B"),
            Some("VARCHAR2"),
            None,
            Some("N"),
            None,
            None,
            None,
            Some("NO"),
            Some("NO"),
            Some("NO"),
        ],
    ]);
    let keys = text_rows(&[
        &[Some("UK_A"), Some("U"), Some("ENABLED"), Some("A")],
        &[Some("UK_B"), Some("U"), Some("ENABLED"), Some("B")],
    ]);
    let meta = snapshot_meta_from_rows(&orders(), &cols, &keys).unwrap();
    assert_eq!(
        meta.key,
        SnapshotKey::Columns(vec![col("B", ValueKind::Text)])
    );
    let meta = snapshot_meta_from_rows(&orders(), &cols, &keys[..1]).unwrap();
    assert_eq!(
        meta.key,
        SnapshotKey::RowId,
        "nullable unique key cannot order"
    );
}

#[test]
fn snapshot_of_unknown_or_unreadable_tables_is_refused() {
    let err = snapshot_meta_from_rows(&orders(), &[], &[]).unwrap_err();
    assert!(matches!(err, SourceError::NotFound(_)), "{err:?}");
    let cols = text_rows(&[&[
        Some("DOC"),
        Some("XMLTYPE"),
        Some("SYS"),
        Some("Y"),
        None,
        None,
        None,
        Some("NO"),
        Some("NO"),
        Some("NO"),
    ]]);
    let err = snapshot_meta_from_rows(&orders(), &cols, &[]).unwrap_err();
    assert!(err.to_string().contains("DOC (XMLTYPE)"), "{err}");
}

#[test]
fn a_full_chunk_returns_its_last_key_and_a_short_one_ends_the_table() {
    let columns = vec![col("ID", ValueKind::Number), col("NAME", ValueKind::Text)];
    let key = SnapshotKey::Columns(vec![col("ID", ValueKind::Number)]);
    let rows = text_rows(&[&[Some("1"), Some("a")], &[Some("2"), None]]);
    let c = chunk_from_rows(&columns, &key, rows.clone(), 2).unwrap();
    assert_eq!(c.last_key, Some(vec!["2".to_string()]));
    assert_eq!(c.columns, vec!["ID", "NAME"]);
    let c = chunk_from_rows(&columns, &key, rows, 3).unwrap();
    assert_eq!(c.last_key, None);
    assert_eq!(c.rows.len(), 2);
}

#[test]
fn rowid_keyed_chunks_hide_the_rowid_column() {
    let columns = vec![col("A", ValueKind::Number)];
    let rows = text_rows(&[&[Some("1"), Some("AAAR3sAAEAAAACXAAA")]]);
    let c = chunk_from_rows(&columns, &SnapshotKey::RowId, rows, 1).unwrap();
    assert_eq!(c.rows, vec![vec![Some("1".to_string())]]);
    assert_eq!(c.last_key, Some(vec!["AAAR3sAAEAAAACXAAA".to_string()]));
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

#[test]
fn contents_select_list_matches_the_column_positions_the_mapping_reads() {
    use super::sql::contents_col as c;
    let q = ContentsQuery::default();
    for version in [11, 19] {
        let items = select_items(&sql::contents_query(&q, version, &maintained()).text);
        assert_eq!(items.len(), c::COUNT, "{items:?}");
        let expect = [
            (c::SCN, "TO_CHAR(SCN)"),
            (c::START_SCN, "TO_CHAR(START_SCN)"),
            (c::COMMIT_SCN, "TO_CHAR(COMMIT_SCN)"),
            (c::TIMESTAMP, "TO_CHAR(TIMESTAMP, 'YYYY-MM-DD HH24:MI:SS')"),
            (c::XID, "RAWTOHEX(XID)"),
            (c::OPERATION_CODE, "TO_CHAR(OPERATION_CODE)"),
            (c::ROLLBACK, "TO_CHAR(ROLLBACK)"),
            (c::SEG_OWNER, "SEG_OWNER"),
            (c::TABLE_NAME, "TABLE_NAME"),
            (c::ROW_ID, "ROW_ID"),
            (c::USERNAME, "USERNAME"),
            (c::RS_ID, "RS_ID"),
            (c::SSN, "TO_CHAR(SSN)"),
            (c::CSF, "TO_CHAR(CSF)"),
            (c::SQL_REDO, "SQL_REDO"),
            (c::STATUS, "TO_CHAR(STATUS)"),
            (c::INFO, "INFO"),
            (c::THREAD, "TO_CHAR(THREAD#)"),
            (c::SEQUENCE, "TO_CHAR(SEQUENCE#)"),
            (c::DATA_OBJ, "TO_CHAR(DATA_OBJ#)"),
            (c::DATA_OBJD, "TO_CHAR(DATA_OBJD#)"),
        ];
        for (idx, text) in expect {
            assert_eq!(items[idx], text, "column {idx} on {version}");
        }
        let src_con = if version >= 12 {
            "SRC_CON_NAME"
        } else {
            "NULL"
        };
        assert_eq!(items[c::SRC_CON_NAME], src_con);
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
fn resuming_with_a_key_of_the_wrong_width_is_refused() {
    let key = SnapshotKey::Columns(vec![
        col("ORDER_ID", ValueKind::Number),
        col("LINE", ValueKind::Number),
    ]);
    let one = vec!["1".to_string()];
    let two = vec!["1".to_string(), "2".to_string()];
    assert!(check_after_key(&orders(), &key, None).is_ok());
    assert!(check_after_key(&orders(), &key, Some(&two)).is_ok());
    let err = check_after_key(&orders(), &key, Some(&one)).unwrap_err();
    assert!(err.to_string().contains("APP.ORDERS"), "{err}");
    assert!(check_after_key(&orders(), &SnapshotKey::RowId, Some(&one)).is_ok());
}

#[test]
fn contents_query_pushes_owner_patterns_down_with_escape() {
    let q = ContentsQuery {
        from_scn: 100,
        to_scn: 200,
        owners: vec![
            "APP".into(),
            "APP_DATA".into(),
            "HR%".into(),
            "A\\B%".into(),
        ],
        pdb: None,
    };
    let b = sql::contents_query(&q, 19, &maintained());
    // `_` is a wildcard in a table pattern; the SQL filter is the same LIKE
    // the engine applies to rows, with `\` escaped so it stays literal.
    assert!(b.text.contains("SEG_OWNER IN (:owner1)"), "{}", b.text);
    assert!(
        b.text.contains("SEG_OWNER LIKE :owner2 ESCAPE '\\'"),
        "{}",
        b.text
    );
    assert!(b
        .binds
        .contains(&("owner4".to_string(), sql::BindValue::Text("A\\\\B%".into()))));
    assert!(
        !b.text.contains("NOT IN"),
        "owners named: no exclusion list"
    );
    snap!("oracle_contents_owner_patterns", bound_text(&b));
}

#[test]
fn contents_query_leaves_out_the_dictionary_list_of_oracle_schemas() {
    let q = ContentsQuery {
        from_scn: 1,
        to_scn: 2,
        owners: vec![],
        pdb: None,
    };
    let b = sql::contents_query(&q, 19, &maintained());
    for name in maintained() {
        assert!(
            b.binds.contains(&(
                format!(
                    "sys{}",
                    maintained().iter().position(|n| *n == name).unwrap_or(0) + 1
                ),
                sql::BindValue::Text(name.clone())
            )),
            "{name} bound: {:?}",
            b.binds
        );
    }
    assert!(!b.text.contains("'SYS'"), "names are bound, not pasted");
    let b11 = sql::contents_query(&q, 11, &sql::builtin_oracle_schemas());
    snap!("oracle_contents_all_owners_11g", bound_text(&b11));
}

#[test]
fn builtin_oracle_schemas_cover_the_11g_era_and_recent_ones() {
    let list = sql::builtin_oracle_schemas();
    for name in [
        "VECSYS",
        "GGSHAREDCAP",
        "SYSMAN",
        "EXFSYS",
        "MGMT_VIEW",
        "FLOWS_FILES",
        "ORACLE_OCM",
        "OWBSYS",
    ] {
        let covered = list.iter().any(|s| {
            if s.contains('%') {
                crate::source::like(&s.replace('\\', ""), name)
            } else {
                s == name
            }
        });
        assert!(covered, "{name} missing");
    }
    assert!(
        list.iter().any(|s| s == "APEX\\_%"),
        "every APEX_ release schema"
    );
}

#[test]
fn snapshot_chunks_without_a_key_read_one_extent_at_a_time() {
    let columns = vec![col("NOTE", ValueKind::Text), col("N", ValueKind::Number)];
    let key = SnapshotKey::RowId;
    let extent = sql::Extent {
        data_object_id: 73_196,
        relative_fno: 4,
        first_block: 128,
        last_block: 135,
    };
    let after = vec!["AAAR3sAAEAAAACCAAF".to_string()];
    let mut out = String::new();
    let cases: [(&str, Option<&[String]>, u32); 3] = [
        ("first chunk of an extent, 19c", None, 19),
        ("resumed inside the extent, 19c", Some(&after), 19),
        ("resumed inside the extent, 11.2", Some(&after), 11),
    ];
    for (title, after_key, version) in cases {
        let read = sql::SnapshotRead {
            extent: Some(&extent),
            ..read("APP", "AUDIT_LOG", &columns, &key, after_key, 5000)
        };
        let b = sql::snapshot_chunk(&read, version).expect("quotable names");
        assert!(b.text.contains("DBMS_ROWID.ROWID_CREATE"), "{}", b.text);
        out.push_str(&format!("-- {title}\n{}\n", bound_text(&b)));
    }
    snap!("oracle_snapshot_chunk_extents", out);
}

#[test]
fn per_pdb_mining_starts_logminer_without_add_logfile() {
    let request = planner_request(&["/u01/redo01a.log", "/u02/arch_1_42.arc"]);
    let mut out = String::new();
    let root = session_plan(&request, false, &[]).expect("root plan");
    assert_eq!(root.add.as_deref(), Some(&request.log_files[..]));
    out.push_str("-- CDB$ROOT or non-CDB\n");
    for (i, file) in request.log_files.iter().enumerate() {
        let text = if i == 0 {
            sql::ADD_LOGFILE_NEW
        } else {
            sql::ADD_LOGFILE_ADDFILE
        };
        out.push_str(&bound_text(&BoundSql {
            text: text.into(),
            binds: vec![("name".into(), sql::BindValue::Text(file.clone()))],
        }));
    }
    out.push_str(&bound_text(&root.start));
    let reused = session_plan(&request, false, &request.log_files).expect("same files");
    assert_eq!(reused.add, None, "same files: only START_LOGMNR");
    let pdb = session_plan(&request, true, &[]).expect("per-PDB plan");
    assert_eq!(pdb.add, None, "ADD_LOGFILE is refused inside a PDB");
    out.push_str("\n-- connected to a PDB (19c+): no ADD_LOGFILE\n");
    out.push_str(&bound_text(&pdb.start));
    let empty = SessionRequest {
        log_files: vec![],
        ..request
    };
    assert!(session_plan(&empty, false, &[]).is_err());
    assert!(
        session_plan(&empty, true, &[]).is_ok(),
        "a PDB session needs no file list"
    );
    snap!("oracle_session_plan", out);
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

/// An `ALL_TAB_COLS` row of [`sql::TABLE_COLUMNS`] with its flags.
fn tab_col(
    name: &str,
    data_type: &str,
    hidden: &str,
    virt: &str,
    user: &str,
) -> Vec<Option<String>> {
    let mut row = vec![Some(name.to_string()), Some(data_type.to_string())];
    row.extend([None, Some("Y".to_string()), None, None, None]);
    row.extend([hidden, virt, user].map(|f| Some(f.to_string())));
    row
}

#[test]
fn invisible_columns_are_kept_in_snapshots() {
    let cols = vec![
        tab_col("ID", "NUMBER", "NO", "NO", "YES"),
        // ALTER TABLE ... ADD (NOTE VARCHAR2(20) INVISIBLE)
        tab_col("NOTE", "VARCHAR2", "YES", "NO", "YES"),
        // A function-based index's hidden virtual column
        tab_col("SYS_NC00003$", "NUMBER", "YES", "YES", "NO"),
        // A column SET UNUSED: hidden and no longer the user's
        tab_col("SYS_C00004_25112912:00:00$", "NUMBER", "YES", "NO", "NO"),
    ];
    let keys = text_rows(&[&[Some("PK"), Some("P"), Some("ENABLED"), Some("ID")]]);
    let meta = snapshot_meta_from_rows(&orders(), &cols, &keys).unwrap();
    let names: Vec<&str> = meta.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["ID", "NOTE"]);
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
