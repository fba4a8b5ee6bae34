//! The LogMiner session: START_LOGMNR's options and the contents query's
//! filters, select list and binds, per Oracle version and container.

use super::*;

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
