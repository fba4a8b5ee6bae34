//! Pins every statement the DM8 backend sends (insta snapshots under the
//! top-level `snapshots/`, files `dm_*.snap`), and the behaviour that needs
//! no server: row and value mapping, the inventory in Oracle's terms, and
//! connecting where nothing listens.

use chrono::NaiveDate;
use dm_pure::{DmDate, DmDateTime, DmTime, Value};

use super::rows::{self, ArchFile};
use super::*;
use crate::engine::row::OperationCode;
use crate::source::{DmArchDest, InstanceFacts, MiningOptions};

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

/// Breaks statements at clause keywords so snapshot diffs show which
/// clause changed; the statement sent stays one line.
fn pretty(sql: &str) -> String {
    let mut out = sql.to_string();
    for kw in [" FROM ", " WHERE ", " AND (", " ORDER BY ", " JOIN "] {
        out = out.replace(kw, &format!("\n{}", kw.trim_start()));
    }
    out
}

fn bound_text(b: &BoundSql) -> String {
    let mut s = pretty(&b.text);
    s.push_str("\n--\n");
    for (i, (name, value)) in b.binds.iter().enumerate() {
        match value {
            BindValue::Text(t) => s.push_str(&format!("?{} {name} = '{t}'\n", i + 1)),
            BindValue::Number(n) => s.push_str(&format!("?{} {name} = {n}\n", i + 1)),
        }
    }
    s
}

fn listing(texts: &[(&str, &str)]) -> String {
    texts
        .iter()
        .map(|(name, text)| format!("-- {name}\n{}\n", pretty(text)))
        .collect::<Vec<_>>()
        .join("\n")
}

fn row(values: &[Option<&str>]) -> Vec<Option<String>> {
    values.iter().map(|v| v.map(str::to_string)).collect()
}

#[test]
fn redo_statements_are_pinned() {
    snap!(
        "dm_redo_statements",
        listing(&[
            ("CURRENT_LSN", sql::CURRENT_LSN),
            ("ARCH_FILES", sql::ARCH_FILES),
            ("ARCH_DESTS", sql::ARCH_DESTS),
            ("OPEN_TRANSACTIONS", sql::OPEN_TRANSACTIONS),
            ("END_LOGMNR", sql::END_LOGMNR),
        ])
    );
}

#[test]
fn catalog_statements_are_pinned() {
    let mut texts = vec![
        ("DATABASE", sql::DATABASE),
        ("DM_INI", sql::DM_INI),
        ("LOGMNR_PACKAGE", sql::LOGMNR_PACKAGE),
        ("DSC_NODES", sql::DSC_NODES),
        ("VERSION", sql::VERSION),
        ("SESSION_USER", sql::SESSION_USER),
        ("TABLE_COLUMNS", sql::TABLE_COLUMNS),
        ("TABLE_KEYS", sql::TABLE_KEYS),
        ("TABLE_PARTITIONING", sql::TABLE_PARTITIONING),
        ("TABLE_PARTITIONS", sql::TABLE_PARTITIONS),
    ];
    texts.extend(sql::PROBED_OBJECTS.iter().copied());
    let schema = sql::set_schema("APP");
    texts.push(("SET_SCHEMA", &schema));
    snap!("dm_catalog_statements", listing(&texts));
}

#[test]
fn table_lookup_leaves_dm_schemas_out_only_for_every_owner() {
    let all = sql::tables_matching("%", "%");
    let app = sql::tables_matching("APP", "ORDER%");
    assert!(all.text.contains("NOT IN ('CTISYS'"));
    assert!(!app.text.contains("NOT IN"));
    snap!(
        "dm_tables_matching",
        format!("{}\n{}", bound_text(&all), bound_text(&app))
    );
}

#[test]
fn logminer_calls_are_pinned_with_cdcctls_options_2128() {
    let options = sql::start_options(&crate::engine::session::mining_options());
    assert_eq!(options, Some(2128));
    let calls = [
        sql::add_logfile(
            "/opt/dmdbms/arch/ARCHIVE_LOCAL1_0x5A_EP0_2026-11-30_10-00-00.log",
            true,
        ),
        sql::add_logfile("/arch/it's.log", false),
    ];
    let mut text: Vec<String> = calls.into_iter().map(Option::unwrap_or_default).collect();
    text.push(sql::start_logmnr(47_000, 48_123, 2128));
    text.push(sql::END_LOGMNR.to_string());
    snap!("dm_logminer_calls", text.join("\n"));
}

#[test]
fn start_options_follow_the_engine_and_refuse_continuous_mine() {
    let committed = MiningOptions {
        committed_data_only: true,
        dict_from_online_catalog: true,
        no_rowid_in_stmt: true,
        continuous_mine: false,
    };
    assert_eq!(sql::start_options(&committed), Some(2130));
    let continuous = MiningOptions {
        continuous_mine: true,
        ..committed
    };
    assert_eq!(sql::start_options(&continuous), None);
    assert_eq!(sql::start_options(&MiningOptions::default()), Some(64));
}

#[test]
fn file_names_with_a_nul_are_refused_and_quotes_are_doubled() {
    assert_eq!(sql::add_logfile("a\0b", true), None);
    assert_eq!(sql::quote_literal("it's").as_deref(), Some("'it''s'"));
}

#[test]
fn contents_queries_are_pinned() {
    let all = sql::contents_query(&ContentsQuery {
        from_scn: 47_000,
        to_scn: 48_123,
        owners: vec![],
        pdb: None,
    });
    let some = sql::contents_query(&ContentsQuery {
        from_scn: 47_000,
        to_scn: 48_123,
        owners: vec!["APP".into(), "CDC_TEST".into(), "SALES%".into()],
        pdb: None,
    });
    assert!(!all.text.contains("ORDER BY"), "redo order, never sorted");
    assert!(all.text.contains("ROLL_BACK") && !all.text.contains(" ROLLBACK"));
    snap!(
        "dm_contents_query",
        format!("{}\n{}", bound_text(&all), bound_text(&some))
    );
}

fn dt(y: i32, mo: u8, d: u8, h: u8, mi: u8, s: u8, micro: u32) -> DmDateTime {
    DmDateTime::new(DmDate::new(y, mo, d), DmTime::new(h, mi, s, micro))
}

#[test]
fn driver_values_become_the_text_the_readers_expect() {
    let cases: Vec<(Value, Option<&str>)> = vec![
        (Value::Null, None),
        (Value::Bool(true), Some("1")),
        (Value::Int(-7), Some("-7")),
        (
            Value::BigInt(9_223_372_036_854_775_807),
            Some("9223372036854775807"),
        ),
        (Value::Decimal("1234.5678".into()), Some("1234.5678")),
        (Value::Str("一段中文".into()), Some("一段中文")),
        (
            Value::Bytes(vec![0, 0, 0, 0, 0, 0, 0x46, 0x8B]),
            Some("000000000000468B"),
        ),
        (Value::Date(DmDate::new(2026, 1, 2)), Some("2026-01-02")),
        (
            Value::DateTime(dt(2026, 1, 2, 10, 20, 30, 123_456)),
            Some("2026-01-02 10:20:30"),
        ),
        (Value::Time(DmTime::new(10, 20, 30, 5)), Some("10:20:30")),
    ];
    for (value, want) in cases {
        assert_eq!(rows::value_text(&value).as_deref(), want, "{value:?}");
    }
}

fn contents(
    scn: &str,
    op: &str,
    xid: Option<&str>,
    roll_back: &str,
    ssn: &str,
    csf: &str,
) -> Vec<Option<String>> {
    row(&[
        Some(scn),
        Some("2026-11-30 10:00:01"),
        xid,
        Some(op),
        Some(roll_back),
        Some("CDC_TEST"),
        Some("T_BASIC"),
        Some("AAAAAAAAAAAAAAAAAB"),
        Some("SYSDBA"),
        None,
        Some(ssn),
        Some(csf),
        Some("INSERT INTO \"CDC_TEST\".\"T_BASIC\"(\"ID\") VALUES(1)"),
    ])
}

fn files() -> Vec<ArchFile> {
    vec![
        ArchFile {
            path: "/arch/a1.log".into(),
            seq: 7,
            first_lsn: 40_000,
            last_lsn: 46_999,
            created: None,
            closed: None,
            status: "INACTIVE".into(),
            bytes: 67_108_864,
        },
        ArchFile {
            path: "/arch/a2.log".into(),
            seq: 8,
            first_lsn: 47_000,
            last_lsn: 48_200,
            created: None,
            closed: None,
            status: "ACTIVE".into(),
            bytes: 1_048_576,
        },
    ]
}

#[test]
fn contents_rows_map_xid_roll_back_csf_and_the_file_sequence() {
    let r = rows::contents_row(
        &contents("47772", "1", Some("000000000000468B"), "0", "0", "1"),
        &files(),
    )
    .expect("a DML row maps");
    assert_eq!(r.scn, 47_772);
    assert_eq!(r.xid, "000000000000468B");
    assert_eq!(r.operation_code, OperationCode::Insert);
    assert!(!r.rollback && r.csf);
    assert_eq!((r.ssn, r.thread, r.sequence), (0, 1, 8));
    assert_eq!((r.start_scn, r.commit_scn), (None, None));
    assert_eq!(
        r.timestamp,
        NaiveDate::from_ymd_opt(2026, 11, 30).and_then(|d| d.and_hms_opt(10, 0, 1))
    );
    assert_eq!(r.row_id.as_deref(), Some("AAAAAAAAAAAAAAAAAB"));

    let undo = rows::contents_row(
        &contents("46000", "2", Some("0x468b"), "1", "1", "0"),
        &files(),
    )
    .expect("a rolled-back row maps");
    assert!(undo.rollback && !undo.csf);
    assert_eq!(
        undo.xid, "000000000000468B",
        "0x text is padded and upper-cased"
    );
    assert_eq!((undo.ssn, undo.sequence), (1, 7));

    let commit = rows::contents_row(
        &contents("47800", "7", Some("000000000000468B"), "0", "0", "0"),
        &files(),
    )
    .expect("a COMMIT row maps");
    assert_eq!(commit.operation_code, OperationCode::Commit);
    let ddl = rows::contents_row(&contents("47801", "5", None, "0", "0", "0"), &files())
        .expect("a row without XID maps");
    assert_eq!(
        (ddl.operation_code, ddl.xid.as_str()),
        (OperationCode::Ddl, "")
    );
}

#[test]
fn dm8_codes_map_xa_commit_to_a_commit_batch_update_to_an_update_and_unknown_codes_through_issue34()
{
    let op = |code: &str| {
        rows::contents_row(
            &contents("47800", code, Some("000000000000468B"), "0", "0", "0"),
            &files(),
        )
        .expect("maps")
        .operation_code
    };
    assert_eq!(op("38"), OperationCode::Commit);
    assert_eq!(op("4"), OperationCode::Update);
    assert_eq!(op("37"), OperationCode::Internal);
    assert_eq!(op("3"), OperationCode::Update);
    assert_eq!(op("41"), OperationCode::Other(41));
}

#[test]
fn the_contents_query_leaves_out_only_internal_and_select_for_update_rows_issue34() {
    let owners = vec!["APP".to_string()];
    // The predicate the simulator answers with is the query's WHERE.
    for code in [0u16, 25] {
        assert!(!sql::contents_selects(code, Some("APP"), &owners), "{code}");
    }
    for code in [1u16, 2, 3, 4, 5, 37, 41, 255] {
        assert!(sql::contents_selects(code, Some("APP"), &owners), "{code}");
        assert!(
            sql::contents_selects(code, None, &owners),
            "{code} without owner"
        );
        assert!(
            !sql::contents_selects(code, Some("HR"), &owners),
            "{code} of HR"
        );
        assert!(
            !sql::contents_selects(code, Some("SYSDBA"), &[]),
            "{code} of SYSDBA"
        );
    }
    for code in [6u16, 7, 34, 36, 38] {
        assert!(sql::contents_selects(code, Some("HR"), &owners), "{code}");
    }
    let text = sql::contents_query(&ContentsQuery {
        from_scn: 1,
        to_scn: 2,
        owners,
        pdb: None,
    })
    .text;
    assert!(
        text.contains("OPERATION_CODE IN (6, 7, 34, 36, 38)"),
        "{text}"
    );
    assert!(text.contains("OPERATION_CODE NOT IN (0, 25)"), "{text}");
}

#[test]
fn malformed_contents_rows_are_typed_errors_not_panics() {
    let bad_xid = rows::contents_row(&contents("1", "1", Some("XYZ"), "0", "0", "0"), &[]);
    assert!(
        matches!(bad_xid, Err(SourceError::Invalid(_))),
        "{bad_xid:?}"
    );
    let short = rows::contents_row(&row(&[Some("1"), None]), &[]);
    assert!(matches!(short, Err(SourceError::Invalid(_))), "{short:?}");
    let bad_scn = rows::contents_row(&contents("x", "1", None, "0", "0", "0"), &[]);
    assert!(
        matches!(bad_scn, Err(SourceError::Invalid(_))),
        "{bad_scn:?}"
    );
}

#[test]
fn arch_file_rows_are_read_by_name_and_bad_numbers_are_errors() {
    let columns: Vec<String> = [
        "PATH",
        "STATUS",
        "ARCH_LSN",
        "CLSN",
        "ARCH_SEQ",
        "NEXT_SEQ",
        "CREATE_TIME",
        "CLOSE_TIME",
        "FILE_SIZE",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let files = rows::arch_files(
        &columns,
        &[row(&[
            Some("/arch/a1.log"),
            Some("inactive"),
            Some("40000"),
            Some("46999"),
            Some("7"),
            Some("8"),
            Some("2026-11-30 09:00:00"),
            Some("2026-11-30 09:30:00"),
            Some("67108864"),
        ])],
    )
    .expect("the row maps");
    assert_eq!(
        (files[0].seq, files[0].first_lsn, files[0].last_lsn),
        (7, 40_000, 46_999)
    );
    assert_eq!(files[0].bytes, 67_108_864);
    assert!(!files[0].is_active());
    assert!(files[0].closed.is_some());

    let without_size = &columns[..8];
    let files = rows::arch_files(
        without_size,
        &[row(&[
            Some("/arch/a2.log"),
            Some("ACTIVE"),
            Some("47000"),
            Some("48200"),
            Some("8"),
            None,
            None,
            None,
        ])],
    )
    .expect("FILE_SIZE is optional");
    assert!(files[0].is_active());
    assert_eq!(files[0].bytes, 0);

    let bad = rows::arch_files(
        without_size,
        &[row(&[
            Some("/a"),
            Some("ACTIVE"),
            None,
            None,
            Some("seven"),
            None,
            None,
            None,
        ])],
    );
    assert!(bad.is_err());
    let no_path = rows::arch_files(&columns[1..], &[]);
    assert!(
        matches!(no_path, Err(SourceError::Invalid(_))),
        "{no_path:?}"
    );
}

#[test]
fn the_inventory_lists_switched_files_as_archived_and_the_active_one_as_current() {
    let dests = vec![
        DmArchDest {
            arch_name: "ARCHIVE_LOCAL1".into(),
            arch_type: "LOCAL".into(),
            arch_dest: "/opt/dmdbms/arch".into(),
            arch_space_limit: 4096,
            arch_is_valid: true,
        },
        DmArchDest {
            arch_name: "ARCHIVE_REALTIME".into(),
            arch_type: "REALTIME".into(),
            arch_dest: "standby".into(),
            arch_space_limit: 0,
            arch_is_valid: false,
        },
    ];
    let inv = rows::inventory(&files(), 48_500, 48_000, &dests);
    assert_eq!(inv.archived.len(), 1);
    let a = &inv.archived[0];
    assert_eq!(
        (a.sequence, a.first_change, a.next_change),
        (7, 40_000, 47_000)
    );
    assert!(a.is_available() && a.dest_id == 1 && a.thread == 1);
    let current = inv
        .current_log(1)
        .expect("the ACTIVE file is the CURRENT log");
    assert_eq!(current.member_files, vec!["/arch/a2.log".to_string()]);
    assert_eq!((current.sequence, current.next_change), (8, None));
    let t = &inv.threads[0];
    assert!(t.is_open());
    assert_eq!(t.current_sequence, 8);
    assert_eq!(t.checkpoint_change, 48_000);
    assert_eq!(
        t.last_redo_scn, 48_201,
        "redo past the active file's CLSN is not minable yet"
    );
    assert_eq!(inv.destinations[0].dest_id, 1);
    assert_eq!(inv.destinations[1].dest_id, 2);
    assert_eq!(inv.destinations[1].status, "ERROR");
    let caught_up = rows::inventory(&files(), 48_100, 48_000, &[]);
    assert_eq!(caught_up.threads[0].last_redo_scn, 48_100);
}

#[test]
fn the_rlog_row_gives_cur_lsn_ckpt_lsn_and_time() {
    let (cur, ckpt, _) = rows::current_lsn(&row(&[
        Some("48500"),
        Some("48000"),
        Some("2026-11-30 10:00:00"),
    ]))
    .expect("maps");
    assert_eq!((cur, ckpt), (48_500, 48_000));
    assert!(rows::current_lsn(&row(&[Some("48500"), Some("1"), None])).is_err());
}

#[test]
fn open_transactions_are_read_by_column_name_whatever_their_status_and_their_id_is_the_xid() {
    let columns: Vec<String> = ["ID", "NEXT_ID", "STATUS", "SESS_ID"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let t = rows::transactions(
        &columns,
        &[
            row(&[Some("18059"), Some("18060"), Some("ACTIVE"), Some("140")]),
            row(&[Some("18061"), Some("18062"), Some("LOCK WAIT"), Some("141")]),
            row(&[Some("18063"), Some("18064"), Some("PREPARE"), Some("142")]),
        ],
    )
    .expect("maps");
    // Listed is open, whatever the state: a lock wait or a prepared XA
    // branch has not ended (issue 34).
    assert_eq!(t.len(), 3);
    assert_eq!(t[0].xid, "000000000000468B");
    assert_eq!(t[1].xid, "000000000000468D");
    assert_eq!(
        t[0].start_scn, 0,
        "no START_LSN column: the start is unknown"
    );
    let with_start: Vec<String> = ["ID", "START_LSN"].iter().map(|s| s.to_string()).collect();
    let t = rows::transactions(&with_start, &[row(&[Some("1"), Some("4700")])]).expect("maps");
    assert_eq!(t[0].start_scn, 4_700);
    assert!(rows::transactions(&["X".to_string()], &[]).is_err());
}

#[test]
fn instance_rows_fill_the_dm_facts_and_parameters() {
    let mut f = InstanceFacts::default();
    catalog::apply_instance_rows(
        &mut f,
        Some(&[row(&[Some("DAMENG"), Some("Y")])]),
        Some(&[
            row(&[Some("ARCH_INI"), Some("1")]),
            row(&[Some("RLOG_APPEND_LOGIC"), Some("2")]),
            row(&[Some("MPP_INI"), Some("0")]),
            row(&[Some("ENABLE_FLASHBACK"), Some("0")]),
        ]),
        Some(&[row(&[Some("1")])]),
        Some(&[row(&[
            Some("ARCHIVE_LOCAL1"),
            Some("LOCAL"),
            Some("/opt/dmdbms/arch"),
            Some("4096"),
            Some("Y"),
        ])]),
    )
    .expect("maps");
    assert_eq!(f.dialect, Dialect::Dm);
    assert_eq!(
        (f.db_name.as_str(), f.log_mode.as_str()),
        ("DAMENG", "ARCHIVELOG")
    );
    assert_eq!(f.parameter("rlog_append_logic"), Some("2"));
    assert_eq!(f.parameter("enable_flashback"), Some("0"));
    let dm = f.dm.expect("DM facts");
    assert_eq!(dm.arch_ini.as_deref(), Some("1"));
    assert_eq!(dm.logmnr_package_installed, Some(true));
    assert_eq!(dm.mpp, Some(false));
    assert_eq!(dm.arch_destinations[0].arch_space_limit, 4096);
    assert!(dm.arch_destinations[0].arch_is_valid);

    let mut unread = InstanceFacts::default();
    catalog::apply_instance_rows(
        &mut unread,
        Some(&[row(&[Some("D"), Some("N")])]),
        None,
        None,
        None,
    )
    .expect("maps");
    assert_eq!(unread.log_mode, "NOARCHIVELOG");
    let dm = unread.dm.expect("DM facts, unread ones unset");
    assert_eq!((dm.arch_ini, dm.logmnr_package_installed), (None, None));
}

#[test]
fn table_rows_map_columns_and_partitions() {
    let c = catalog::columns_from_rows(&[row(&[
        Some("ID"),
        Some("INT"),
        Some("N"),
        Some("4"),
        Some("10"),
        Some("0"),
    ])])
    .expect("maps");
    assert!(!c[0].nullable);
    assert_eq!(c[0].data_precision, Some(10));
    let p = catalog::partitions_from_rows(&[row(&[Some("P1"), Some("1"), Some("100"), None])])
        .expect("maps");
    assert_eq!((p[0].name.as_str(), p[0].position), ("P1", 1));
    let (banner, version) = catalog::banner_and_version(&[
        row(&[Some("DM Database Server 64 V8")]),
        row(&[Some("DB Version: 0x7000d")]),
    ]);
    assert_eq!(
        (banner.as_str(), version.as_str()),
        ("DM Database Server 64 V8", "8")
    );
}

/// A port on the loopback that nothing listens on: bound, then released.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    let port = listener.local_addr().expect("local address").port();
    drop(listener);
    port
}

#[test]
fn connecting_where_nothing_listens_is_unreachable_fast_and_transient() {
    let port = closed_port();
    let options = DmOptions::new(
        &format!("dm://CDC@127.0.0.1:{port}"),
        Some(Password::new("x")),
    )
    .expect("a valid address");
    let started = std::time::Instant::now();
    let err = DmSource::connect(options).expect_err("nothing listens");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    assert!(err.is_unreachable(), "{err:?}");
    assert_eq!(crate::exit::for_source(&err), crate::exit::UNREACHABLE);
    let text = err.to_string();
    assert!(text.contains(&format!("127.0.0.1:{port}")), "{text}");
    assert!(err.is_transient());
    assert!(err.advice().is_some_and(|a| a.contains("DM8")));
}

#[test]
fn without_a_password_nothing_is_sent_and_the_error_says_where_it_comes_from() {
    let options = DmOptions::new("dm://CDC@127.0.0.1:1", None).expect("valid");
    let err = DmSource::connect(options).expect_err("no password");
    assert!(matches!(err, SourceError::NoPassword(_)), "{err:?}");
    assert!(err.to_string().contains("CDCCTL_PASSWORD"), "{err}");
}

#[test]
fn a_bad_address_is_invalid_and_never_echoes_the_password() {
    let err = DmOptions::new("dm://cdc:hunter2@localhost", None).expect_err("password in URL");
    assert!(matches!(err, SourceError::Invalid(_)));
    assert!(!err.to_string().contains("hunter2"));
}

fn orders_facts() -> crate::source::TableFacts {
    use crate::source::{ColumnFacts, KeyConstraint, TableFacts};
    let col = |name: &str, ty: &str, nullable: bool, scale: Option<i32>| ColumnFacts {
        name: name.into(),
        data_type: ty.into(),
        nullable,
        data_scale: scale,
        ..ColumnFacts::default()
    };
    TableFacts {
        name: TableName {
            owner: "APP".into(),
            table: "ORDERS".into(),
        },
        columns: vec![
            col("REGION", "VARCHAR", false, None),
            col("ORDER_ID", "BIGINT", false, Some(0)),
            col("DAY", "DATE", true, None),
            col("CREATED_AT", "TIMESTAMP", true, Some(6)),
            col("AT_TZ", "TIMESTAMP WITH TIME ZONE", true, Some(3)),
            col("PHOTO", "BLOB", true, None),
        ],
        constraints: vec![KeyConstraint {
            name: "PK_ORDERS".into(),
            constraint_type: "P".into(),
            columns: vec!["REGION".into(), "ORDER_ID".into()],
            enabled: true,
        }],
        ..TableFacts::default()
    }
}

#[test]
fn dm8_snapshot_chunks_are_flashback_reads_as_of_the_lsn_in_key_order() {
    let facts = orders_facts();
    let meta = snapshot::meta_from_facts(&facts.name, &facts).expect("meta");
    let read = sql::DmSnapshotRead {
        owner: "APP",
        table: "ORDERS",
        columns: &meta.columns,
        key: &meta.key,
        after_key: None,
        limit: 500,
        as_of_lsn: 40123,
    };
    let first = sql::snapshot_chunk(&read).expect("sql");
    let after = ["EU".to_string(), "17".to_string()];
    let next = sql::snapshot_chunk(&sql::DmSnapshotRead {
        after_key: Some(&after),
        ..read
    })
    .expect("sql");
    let no_key = sql::snapshot_chunk(&sql::DmSnapshotRead {
        key: &[],
        after_key: Some(&after[1..]),
        ..read
    })
    .expect("sql");
    snap!(
        "dm_snapshot_chunk",
        format!(
            "-- first chunk\n{}\n-- next chunk\n{}\n-- a table without a key\n{}",
            bound_text(&first),
            bound_text(&next),
            bound_text(&no_key)
        )
    );
}

#[test]
fn dm8_snapshot_rows_take_the_stream_forms_and_keep_the_key_as_read() {
    let facts = orders_facts();
    let meta = snapshot::meta_from_facts(&facts.name, &facts).expect("meta");
    let rows = vec![row(&[
        Some("EU"),
        Some("17"),
        Some("2025-11-19 00:00:00"),
        Some("2025-11-19 10:00:00.123456"),
        Some("2025-11-19 18:00:00.250 +08:00"),
        Some("0A0B"),
    ])];
    let chunk = snapshot::chunk_from_rows(&meta, rows, 1).expect("chunk");
    assert_eq!(
        chunk.rows[0],
        row(&[
            Some("EU"),
            Some("17"),
            Some("2025-11-19T00:00:00"),
            Some("2025-11-19T10:00:00.123456"),
            Some("2025-11-19T10:00:00.250Z"),
            Some("0a0b"),
        ])
    );
    assert_eq!(
        chunk.last_key,
        Some(vec!["EU".to_string(), "17".to_string()])
    );
}

#[test]
fn dm8_snapshots_refuse_partitioned_tables_and_types_they_cannot_read() {
    let mut facts = orders_facts();
    facts.partitioning = Some(crate::source::PartitioningFacts::default());
    let err = snapshot::meta_from_facts(&facts.name, &facts).expect_err("partitioned");
    assert!(err.to_string().contains("partitioned"), "{err}");
    let mut facts = orders_facts();
    facts.columns[2].data_type = "INTERVAL DAY TO SECOND".into();
    let err = snapshot::meta_from_facts(&facts.name, &facts).expect_err("interval");
    assert!(err.to_string().contains("DAY (INTERVAL"), "{err}");
}

/// A one-connection server on the loopback that answers the client's first
/// frame (the handshake) with DM8 error `code` and `message`, the way DM8
/// sends errors: the code in the frame header, the text in the body.
fn refusing_server(code: i32, message: &str) -> (u16, std::thread::JoinHandle<()>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    let port = listener.local_addr().expect("local address").port();
    let (text, _, _) = encoding_rs::GB18030.encode(message);
    let mut body = (text.len() as i32).to_le_bytes().to_vec();
    body.extend_from_slice(&text);
    let handle = std::thread::spawn(move || {
        let Ok((mut stream, _)) = listener.accept() else {
            return;
        };
        let mut header = [0u8; 64];
        if stream.read_exact(&mut header).is_err() {
            return;
        }
        let len = u32::from_le_bytes([header[6], header[7], header[8], header[9]]) as usize;
        let mut request = vec![0u8; len];
        let _ = stream.read_exact(&mut request);
        let mut reply = dm_pure::frame::make_header(0, 228, body.len() as u32, &[]);
        reply[10..14].copy_from_slice(&code.to_le_bytes());
        reply[19] = reply[..19].iter().fold(0, |x, b| x ^ b);
        let _ = stream.write_all(&reply);
        let _ = stream.write_all(&body);
    });
    (port, handle)
}

#[test]
fn a_server_refusing_the_login_is_an_authentication_error_with_dms_code() {
    let (port, server) = refusing_server(error::BAD_LOGIN, "用户名或密码错误");
    let options = DmOptions::new(
        &format!("dm://CDC@127.0.0.1:{port}"),
        Some(Password::new("x")),
    )
    .expect("a valid address");
    let err = DmSource::connect(options).expect_err("the server refuses");
    let _ = server.join();
    let SourceError::Authentication(text) = &err else {
        panic!("expected Authentication, got {err:?}");
    };
    assert!(
        text.contains("[-2501]") && text.contains("用户名或密码错误"),
        "{text}"
    );
    assert!(!err.is_transient());
}

#[test]
fn a_server_answering_with_another_code_is_a_dm_error_keeping_it() {
    let (port, server) = refusing_server(-2106, "无效的表或视图名");
    let options = DmOptions::new(
        &format!("dm://CDC@127.0.0.1:{port}"),
        Some(Password::new("x")),
    )
    .expect("a valid address");
    let err = DmSource::connect(options).expect_err("the server refuses");
    let _ = server.join();
    assert_eq!(error::dm_code(&err), Some(-2106), "{err:?}");
}

#[test]
fn a_given_password_is_kept_and_a_missing_one_comes_from_the_env_or_the_prompt() {
    let given = DmOptions::new("dm://CDC@127.0.0.1", Some(Password::new("given")))
        .expect("valid")
        .resolve_password(|_| panic!("no prompt when a password is given"));
    assert_eq!(given.password, Some(Password::new("given")));
    let mut asked = None;
    let filled = DmOptions::new("dm://Cdc@127.0.0.1", None)
        .expect("valid")
        .resolve_password(|user| {
            asked = Some(user.to_string());
            Some(Password::new("typed"))
        });
    match Password::from_env() {
        Some(env) => assert_eq!(filled.password, Some(env)),
        None => {
            assert_eq!(
                asked.as_deref(),
                Some("Cdc"),
                "the prompt names the user as written"
            );
            assert_eq!(filled.password, Some(Password::new("typed")));
        }
    }
}
