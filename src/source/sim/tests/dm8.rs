//! The DM8 mode: DM8's rows and literals, append logic, pieces, rollbacks,
//! what it refuses, its catalog and inventory, its truth.

use super::*;

/// A built-in DM8 scenario with `edits` applied to its text.
fn dm_variant(edits: &[(&str, &str)]) -> Sim {
    let b = BUILTINS.iter().find(|b| b.name == "dm8").expect("dm8");
    let mut text = b.text.to_string();
    for (from, to) in edits {
        assert!(text.contains(from), "dm8 has no `{from}`");
        text = text.replacen(from, to, 1);
    }
    Sim::new(
        Scenario::parse(&text, "dm8").expect("a valid variant"),
        Clock::default(),
    )
}

#[test]
fn dm8_rows_have_own_start_and_commit_rows_dm8_literals_and_no_oracle_forms() {
    let s = Sim::from_spec("dm8").expect("dm8");
    let rows = s.all_rows();
    assert!(rows.len() > 1000, "{} rows", rows.len());
    let count = |op: OperationCode| rows.iter().filter(|r| r.operation_code == op).count();
    assert!(count(OperationCode::Start) > 100);
    assert!(count(OperationCode::Commit) > 100);
    // No end row for a rollback, and (rollback model `none`) no undo rows.
    assert_eq!(count(OperationCode::Rollback), 0);
    assert!(rows.iter().all(|r| !r.rollback));
    for r in &rows {
        assert_eq!(r.xid.len(), 16, "{}", r.xid);
        assert!(r
            .xid
            .bytes()
            .all(|b| b.is_ascii_digit() || b.is_ascii_uppercase()));
        assert_eq!((r.thread, r.start_scn, r.commit_scn), (1, None, None));
        let Some(sql) = r.sql_redo.as_deref() else {
            assert!(
                matches!(
                    r.operation_code,
                    OperationCode::Start | OperationCode::Commit | OperationCode::Other(38)
                ),
                "{:?}",
                r.operation_code
            );
            continue;
        };
        // Outside string literals (a doubled quote toggles twice).
        let mut inside = false;
        let code: String = sql
            .chars()
            .filter(|&c| {
                if c == '\'' {
                    inside = !inside;
                }
                !inside && c != '\''
            })
            .collect();
        for oracle_only in [
            "TO_DATE(",
            "TO_TIMESTAMP",
            "HEXTORAW(",
            "EMPTY_",
            "ROWID",
            ";",
            " a.",
        ] {
            assert!(!code.contains(oracle_only), "{oracle_only} in {sql}");
        }
        assert!(
            sql.starts_with("INSERT INTO \"APP\".")
                || sql.starts_with("UPDATE \"APP\".")
                || sql.starts_with("DELETE FROM \"APP\"."),
            "{sql}"
        );
        // DM8 puts `", "` between an INSERT's columns and `VALUES(` after.
        if let (Some(open), Some(values)) = (sql.find('('), sql.find(") VALUES(")) {
            let columns = &sql[open..values];
            assert!(!columns.contains("\",\""), "{sql}");
            assert!(columns.contains("\", \""), "{sql}");
        }
    }
    let all: String = rows.iter().filter_map(|r| r.sql_redo.clone()).collect();
    for form in [
        "DATE'",
        "TIME'",
        "TIMESTAMP'",
        " +05:30'",
        "0x",
        "OUT_CLOB",
        "E-",
    ] {
        assert!(all.contains(form), "no {form} in any row");
    }
    assert!(!all.contains("OUT_CLOB(LOB_ID"), "parse_lob is off");
}

#[test]
fn dm8_xa_branches_end_in_xa_commit_38_never_in_commit_7_and_batched_updates_show_code_4_issue34() {
    let s = Sim::from_spec("dm8").expect("dm8");
    let rows = s.all_rows();
    let xa: std::collections::HashSet<&str> = rows
        .iter()
        .filter(|r| r.operation_code == OperationCode::Other(38))
        .map(|r| r.xid.as_str())
        .collect();
    assert!(xa.len() > 10, "{} XA commits", xa.len());
    for r in &rows {
        if xa.contains(r.xid.as_str()) {
            assert_ne!(r.operation_code, OperationCode::Commit, "{}", r.xid);
        }
    }
    let batched: Vec<&LogMinerRow> = rows
        .iter()
        .filter(|r| r.operation_code == OperationCode::Other(4))
        .collect();
    assert!(batched.len() > 10, "{} BATCH_UPDATE rows", batched.len());
    for r in batched {
        let sql = r.sql_redo.as_deref().unwrap_or("");
        assert!(sql.starts_with("UPDATE \"APP\"."), "{sql}");
    }
}

#[test]
fn dm8_where_carries_the_full_before_image_at_append_logic_2_and_the_key_at_1() {
    let full = Sim::from_spec("dm8").expect("dm8");
    let update = |s: &Sim| -> String {
        s.all_rows()
            .into_iter()
            .filter(|r| r.operation_code == OperationCode::Update)
            .filter_map(|r| r.sql_redo)
            .find(|q| q.starts_with("UPDATE \"APP\".\"ALL_TYPES\""))
            .expect("an update of ALL_TYPES")
    };
    let sql = update(&full);
    let where_part = sql.split(" WHERE ").nth(1).expect("a WHERE");
    for col in ["\"ID\"", "\"BIG\"", "\"RATIO\"", "\"STAMP_TZ\""] {
        assert!(where_part.contains(col), "{col} missing: {sql}");
    }
    assert!(!where_part.contains("\"BODY\"") && !where_part.contains("\"PHOTO\""));
    let keyed = dm_variant(&[("rlog_append_logic = 2", "rlog_append_logic = 1")]);
    let sql = update(&keyed);
    let where_part = sql.split(" WHERE ").nth(1).expect("a WHERE");
    assert!(
        where_part.starts_with("\"ID\" = ") && !where_part.contains(" AND "),
        "{sql}"
    );
}

#[test]
fn dm8_splits_long_statements_into_pieces_of_one_scn_numbered_by_ssn() {
    let mut s = Sim::from_spec("dm8").expect("dm8");
    let to = s.model().scn;
    let from = s.scenario().instance.start_scn;
    s.start_session(&SessionRequest {
        log_files: s.plan_logs(from),
        start_scn: from,
        end_scn: to,
        options: MiningOptions {
            dict_from_online_catalog: true,
            ..MiningOptions::default()
        },
    })
    .expect("a session");
    s.query_contents(&ContentsQuery {
        from_scn: from,
        to_scn: to,
        ..ContentsQuery::default()
    })
    .expect("a query");
    let mut rows = Vec::new();
    while s.fetch(1000, &mut rows).expect("fetch") > 0 {}
    let first = rows
        .iter()
        .position(|r| r.csf)
        .expect("a statement over 4000 bytes");
    let scn = rows[first].scn;
    let pieces: Vec<_> = rows[first..].iter().take_while(|r| r.scn == scn).collect();
    assert!(pieces.len() >= 2);
    for (n, p) in pieces.iter().enumerate() {
        assert_eq!(p.ssn, n as u64);
        assert_eq!(p.csf, n + 1 < pieces.len());
        assert!(p.sql_redo.as_deref().map_or(0, str::len) <= CSF_PIECE_BYTES);
    }
}

#[test]
fn dm8_append_logic_0_shows_nothing_and_flagged_rollbacks_show_undo_rows_without_an_end_row() {
    let empty = Sim::from_spec("dm8-append-logic-0").expect("scenario");
    assert!(empty.all_rows().is_empty());
    assert!(
        !empty.model().archived.is_empty(),
        "files are still archived"
    );
    let flagged = dm_variant(&[("rollback_rows = \"none\"", "rollback_rows = \"flagged\"")]);
    let rows = flagged.all_rows();
    assert!(rows.iter().any(|r| r.rollback && r.operation_code.is_dml()));
    assert!(rows
        .iter()
        .all(|r| r.operation_code != OperationCode::Rollback));
    let lob_ids = dm_variant(&[("parse_lob = false", "parse_lob = true")]);
    assert!(lob_ids
        .all_rows()
        .iter()
        .filter_map(|r| r.sql_redo.as_deref())
        .any(|q| q.contains("OUT_CLOB(LOB_ID: ")));
}

#[test]
fn dm8_partial_rollbacks_and_oracle_faults_are_refused() {
    let b = BUILTINS.iter().find(|b| b.name == "dm8").expect("dm8");
    let text = b.text.replacen(
        "rollback_pct = 5.0",
        "rollback_pct = 5.0\nsavepoint_pct = 1.0",
        1,
    );
    let e = Scenario::parse(&text, "dm8")
        .expect_err("refused")
        .to_string();
    assert!(e.contains("workload.savepoint_pct"), "{e}");
    let text = format!(
        "{}\n[[faults]]\nkind = \"archive_deleted\"\nat_s = 10\n",
        b.text
    );
    let e = Scenario::parse(&text, "dm8")
        .expect_err("refused")
        .to_string();
    assert!(e.contains("does not model"), "{e}");
}

#[test]
fn dm8_catalog_and_inventory_follow_the_contract_mapping() {
    let mut s = Sim::from_spec("dm8").expect("dm8");
    assert_eq!(RedoSource::dialect(&s), crate::source::Dialect::Dm);
    let i = Catalog::instance(&mut s).expect("instance");
    assert_eq!(i.dialect, crate::source::Dialect::Dm);
    assert_eq!(i.log_mode, "ARCHIVELOG");
    let d = i.dm.expect("DM8 facts");
    assert_eq!(d.rlog_append_logic.as_deref(), Some("2"));
    assert_eq!(d.logmnr_package_installed, Some(true));
    assert_eq!(d.arch_destinations.len(), 1);
    assert_eq!(
        i.parameters.get("rlog_append_logic").map(String::as_str),
        Some("2")
    );
    let inv = Catalog::log_inventory(&mut s).expect("inventory");
    assert!(inv.archived.len() >= 2);
    assert_eq!(inv.online.len(), 1);
    let current = &inv.online[0];
    assert_eq!(
        (current.thread, current.status.as_str(), current.next_change),
        (1, "CURRENT", None)
    );
    assert_eq!(inv.threads.len(), 1);
    assert_eq!(inv.resetlogs_change, 0);
    let types: Vec<String> = Catalog::tables(&mut s, &[])
        .expect("tables")
        .into_iter()
        .flat_map(|t| t.columns.into_iter().map(|c| c.data_type))
        .collect();
    for ty in [
        "INT",
        "BIGINT",
        "DECIMAL",
        "DOUBLE",
        "VARCHAR",
        "CHAR",
        "DATE",
        "TIME",
        "TIMESTAMP",
        "TIMESTAMP WITH TIME ZONE",
        "BLOB",
        "CLOB",
    ] {
        assert!(types.iter().any(|t| t == ty), "{ty} not in {types:?}");
    }
    let mut off = Sim::from_spec("dm8-no-arch").expect("scenario");
    let i = Catalog::instance(&mut off).expect("instance");
    assert_eq!(i.log_mode, "NOARCHIVELOG");
    let inv = Catalog::log_inventory(&mut off).expect("inventory");
    assert!(inv.archived.is_empty() && inv.online.is_empty());
}

#[test]
fn dm8_truth_gives_long_lobs_as_unavailable_even_when_lobs_are_captured() {
    use crate::engine::event::CapturedEvent;
    let mut s = Sim::from_spec("dm8").expect("dm8");
    s.set_lob_truth(true);
    s.advance_ms(600_000);
    let mut inline = 0;
    let mut out = 0;
    for e in s.truth() {
        let CapturedEvent::Change(c) = e else {
            continue;
        };
        for (name, f) in c.after.iter().flatten() {
            if name == "BODY" || name == "PHOTO" {
                match f {
                    FieldRef::Unavailable => out += 1,
                    FieldRef::Null => {}
                    _ => inline += 1,
                }
            }
        }
    }
    assert!(inline > 0 && out > 0, "inline {inline}, out of row {out}");
}

#[test]
fn dm8_flashback_reads_give_the_table_as_of_the_lsn_in_the_streams_forms_issue34() {
    let mut s = Sim::from_spec("dm8").expect("dm8");
    let scn = s.model().scn;
    let table = TableName {
        owner: "APP".into(),
        table: "ALL_TYPES".into(),
    };
    let chunk = s.snapshot_chunk(&table, scn, None, 1000).expect("a read");
    let want = s
        .table_contents_at(scn)
        .expect("undo covers it")
        .into_iter()
        .find(|t| t.name == table)
        .expect("ALL_TYPES");
    assert_eq!(chunk.rows.len(), want.rows.len());
    assert_eq!(chunk.last_key, None, "the table fits one chunk");
    let at = |c: &str| chunk.columns.iter().position(|x| x == c).expect(c);
    for row in &chunk.rows {
        // DM8's forms, as the stream gives them: ISO times with the
        // column's six digits, instants in UTC, numbers with a leading 0.
        if let Some(stamp) = &row[at("STAMP")] {
            assert_eq!(stamp.len(), "2025-11-19T10:00:00.123456".len(), "{stamp}");
        }
        if let Some(tz) = &row[at("STAMP_TZ")] {
            assert!(tz.ends_with('Z'), "{tz}");
        }
        if let Some(price) = &row[at("PRICE")] {
            assert!(
                !price.starts_with('.') && !price.starts_with("-."),
                "{price}"
            );
        }
    }
    // LOBs whole, where DM8's log shows OUT_CLOB.
    let body = at("BODY");
    assert!(chunk
        .rows
        .iter()
        .any(|r| r[body].as_ref().is_some_and(|b| b.len() > 900)));
}

#[test]
fn dm8_flashback_reads_fail_with_9801_when_flashback_is_off_or_undo_was_released_issue34() {
    let table = TableName {
        owner: "APP".into(),
        table: "ORDERS".into(),
    };
    let mut off = dm_variant(&[("enable_flashback = true", "enable_flashback = false")]);
    let scn = off.model().scn;
    let e = off
        .snapshot_chunk(&table, scn, None, 10)
        .expect_err("no version kept");
    assert!(matches!(e, SourceError::Dm { code: -9801, .. }), "{e:?}");
    assert!(e.to_string().contains("ENABLE_FLASHBACK = 0"), "{e}");
    // Older than UNDO_RETENTION: the undo of the LSN was released.
    let mut s = dm_variant(&[("undo_retention_s = 900", "undo_retention_s = 30")]);
    // Five minutes of workload since the scenario's first LSN.
    let old = s.model().scenario.instance.start_scn + 1;
    let e = s
        .snapshot_chunk(&table, old, None, 10)
        .expect_err("undo released");
    assert!(matches!(e, SourceError::Dm { code: -9801, .. }), "{e:?}");
    // A table the user may not SELECT is DM8's invalid table name.
    let mut s = dm_variant(&[("grants = [\"SELECT\"]", "grants = []")]);
    let e = s
        .snapshot_chunk(&table, scn, None, 10)
        .expect_err("no SELECT");
    assert!(matches!(e, SourceError::Dm { code: -2106, .. }), "{e:?}");
}

#[test]
fn dm8_original_rollback_rows_flag_the_rolled_back_changes_themselves_and_write_no_undo() {
    let sim = dm_variant(&[
        ("rollback_rows = \"none\"", "rollback_rows = \"original\""),
        (
            "rollback_pct = 5.0",
            "rollback_pct = 5.0\nsavepoint_pct = 40.0",
        ),
    ]);
    let flagged: Vec<_> = sim.all_rows().into_iter().filter(|r| r.rollback).collect();
    assert!(flagged.len() > 5, "only {} flagged rows", flagged.len());
    let undone = &sim.model().undone;
    for r in &flagged {
        let code = crate::source::dm::rows::operation_code(r.operation_code.code());
        assert!(code.is_dml(), "{r:?}");
        assert!(
            undone.contains_key(&r.scn),
            "ROLL_BACK = 1 on a row that is not a rolled-back change: {r:?}"
        );
    }
}
