//! The catalog's row mappings and probes, without a database.

use super::*;

fn row(values: &[Option<&str>]) -> Vec<Option<String>> {
    values.iter().map(|v| v.map(str::to_string)).collect()
}

#[test]
fn missing_privilege_and_missing_column_are_facts_not_failures() {
    assert_eq!(
        optional::<()>(Err(SourceError::oracle(942, "no view"))),
        Ok(None)
    );
    assert_eq!(
        optional::<()>(Err(SourceError::oracle(1031, "no priv"))),
        Ok(None)
    );
    assert_eq!(
        optional::<()>(Err(SourceError::oracle(904, "no column"))),
        Ok(None)
    );
    let dropped = optional::<()>(Err(SourceError::Unreachable("eof".into())));
    assert!(dropped.is_err());
    let other = optional::<()>(Err(SourceError::oracle(1555, "too old")));
    assert!(other.is_err());
}

#[test]
fn probes_record_missing_grants_but_not_a_missing_logminer_session() {
    let mut missing = BTreeMap::new();
    let no_grant: Result<(), _> = Err(SourceError::oracle(942, "no view"));
    probe_result(&mut missing, "V$ARCHIVED_LOG", no_grant).unwrap();
    let no_session: Result<(), _> = Err(SourceError::oracle(1306, "start_logmnr first"));
    probe_result(&mut missing, "V$LOGMNR_CONTENTS", no_session).unwrap();
    probe_result(&mut missing, "V$LOG", Ok(())).unwrap();
    assert_eq!(
        missing.into_iter().collect::<Vec<_>>(),
        vec![("V$ARCHIVED_LOG".to_string(), 942)]
    );
    let dropped: Result<(), _> = Err(SourceError::Unreachable("eof".into()));
    assert!(probe_result(&mut BTreeMap::new(), "V$LOG", dropped).is_err());
}

#[test]
fn dbms_logmnr_probe_reads_ora_01307_as_granted_and_ora_06550_as_missing() {
    let no_session = Err(SourceError::oracle(1307, "no LogMiner session is active"));
    assert_eq!(logmnr_probe_code(no_session), Ok(None));
    assert_eq!(logmnr_probe_code(Ok(())), Ok(None));
    let not_declared = Err(SourceError::oracle(
        6550,
        "line 1, column 7: PLS-00201: identifier 'SYS.DBMS_LOGMNR' must be declared",
    ));
    assert_eq!(logmnr_probe_code(not_declared), Ok(Some(6550)));
    let dropped = Err(SourceError::Unreachable("eof".into()));
    assert!(logmnr_probe_code(dropped).is_err());
}

#[test]
fn open_transactions_name_their_own_container_on_each_release() {
    // CON_ID_TO_CON_NAME is 18c+; 12.x joins V$CONTAINERS on the
    // transaction's CON_ID; never the reader's own SYS_CONTEXT.
    assert!(open_transactions_sql(19).contains("CON_ID_TO_CON_NAME(T.CON_ID)"));
    assert!(open_transactions_sql(18).contains("CON_ID_TO_CON_NAME(T.CON_ID)"));
    for major in [12, 17] {
        let text = open_transactions_sql(major);
        assert!(
            text.contains("V$CONTAINERS C ON C.CON_ID = T.CON_ID"),
            "{major}"
        );
        assert!(!text.contains("CON_ID_TO_CON_NAME"), "{major}");
    }
    assert_eq!(open_transactions_sql(11), sql::OPEN_TRANSACTIONS_NO_CON);
    for major in [11, 12, 18, 19] {
        assert!(!open_transactions_sql(major).contains("SYS_CONTEXT"));
    }
}

#[test]
fn unreadable_objects_are_recorded_with_their_code() {
    let mut missing = BTreeMap::new();
    let r: Result<Option<()>, _> = or_record(
        &mut missing,
        "DBA_PROFILES",
        Err(SourceError::oracle(1031, "no priv")),
    );
    assert_eq!(r, Ok(None));
    assert_eq!(missing.get("DBA_PROFILES"), Some(&1031));
}

#[test]
fn database_row_fills_supplemental_logging_and_mode() {
    let mut f = InstanceFacts::default();
    let r = row(&[
        Some("FREE"),
        Some("ARCHIVELOG"),
        Some("IMPLICIT"),
        Some("YES"),
        Some("NO"),
        Some("NO"),
        Some("YES"),
        Some("PRIMARY"),
        Some("READ WRITE"),
        Some("2345678"),
        Some("2026-11-29 12:00:00"),
    ]);
    apply_database_row(&mut f, &r).unwrap();
    assert_eq!(f.log_mode, "ARCHIVELOG");
    assert_eq!(f.supplemental_log_data_min, "IMPLICIT");
    assert!(f.supplemental_log_data_pk && !f.supplemental_log_data_ui && f.force_logging);
    assert_eq!(f.current_scn, 2_345_678);
}

#[test]
fn pdb_rows_map_restriction_and_application_roles() {
    let p = pdbs_from_rows(&vec![
        row(&[
            Some("PDB$SEED"),
            Some("2"),
            Some("READ ONLY"),
            Some("NO"),
            Some("NO"),
            Some("NO"),
        ]),
        row(&[
            Some("APPROOT"),
            Some("3"),
            Some("READ WRITE"),
            Some("YES"),
            Some("YES"),
            None,
        ]),
    ])
    .unwrap();
    assert_eq!(p[1].con_id, 3);
    assert!(p[1].restricted && p[1].application_root && !p[1].application_pdb);
    assert!(!p[0].restricted);
}

#[test]
fn constraint_and_index_rows_fold_by_name() {
    let keys = vec![
        row(&[Some("PK_ORD"), Some("P"), Some("ENABLED"), Some("ID")]),
        row(&[Some("PK_ORD"), Some("P"), Some("ENABLED"), Some("LINE")]),
        row(&[Some("UK_REF"), Some("U"), Some("DISABLED"), Some("REF")]),
    ];
    let c = constraints_from_rows(&keys).unwrap();
    assert_eq!(c.len(), 2);
    assert_eq!(c[0].columns, vec!["ID", "LINE"]);
    assert!(c[0].enabled && !c[1].enabled);

    let idx = vec![
        row(&[
            Some("IX_A"),
            Some("NONUNIQUE"),
            Some("YES"),
            Some("N/A"),
            Some("A"),
            Some("P1,P3"),
            Some("LOCAL"),
        ]),
        row(&[
            Some("IX_A"),
            Some("NONUNIQUE"),
            Some("YES"),
            Some("N/A"),
            Some("B"),
            Some("P1,P3"),
            Some("LOCAL"),
        ]),
        row(&[
            Some("PK_ORD"),
            Some("UNIQUE"),
            Some("NO"),
            Some("VALID"),
            Some("ID"),
            None,
            None,
        ]),
    ];
    let mut i = indexes_from_rows(&idx).unwrap();
    assert_eq!(i[0].columns, vec!["A", "B"]);
    assert_eq!(i[0].unusable_partitions, vec!["P1", "P3"]);
    let more = vec![
        row(&[Some("IX_A"), Some("P7")]),
        row(&[Some("IX_GONE"), Some("P1")]),
    ];
    apply_unusable_partitions(&mut i, &more).unwrap();
    assert_eq!(i[0].unusable_partitions, vec!["P1", "P3", "P7"]);
    assert!(i[0].local && !i[0].unique);
    assert!(i[1].unique && i[1].unusable_partitions.is_empty());
}

#[test]
fn column_rows_keep_nullability_and_scale() {
    let cols = vec![row(&[
        Some("AMOUNT"),
        Some("NUMBER"),
        None,
        Some("N"),
        Some("22"),
        Some("12"),
        Some("-2"),
        Some("NO"),
        Some("NO"),
    ])];
    let c = columns_from_rows(&cols).unwrap();
    assert!(!c[0].nullable);
    assert_eq!((c[0].data_precision, c[0].data_scale), (Some(12), Some(-2)));
}

#[test]
fn partition_and_transaction_rows_map() {
    let p = partitions_from_rows(&vec![row(&[
        Some("SYS_P101"),
        Some("3"),
        Some("TO_DATE(' 2025-02-01 00:00:00', 'SYYYY-MM-DD HH24:MI:SS', 'NLS_CALENDAR=GREGORIAN')"),
        None,
        Some("74622"),
        Some("74650"),
        Some("2025-01-01 00:00:00"),
        Some("2025-01-20 03:00:00"),
        Some("YES"),
        Some("0"),
    ])])
    .unwrap();
    assert!(p[0].interval);
    assert_eq!(p[0].data_object_id, Some(74650));
    let mut p = p;
    apply_partition_bytes(&mut p, &vec![row(&[Some("SYS_P101"), Some("65536")])]).unwrap();
    assert_eq!(p[0].bytes, Some(65536));
    let t = transactions_from_rows(&vec![row(&[
        Some("0a0014005d3c0000"),
        Some("1000"),
        None,
        Some("12"),
        Some("APP"),
        Some("FREEPDB1"),
        Some("JDBC Thin Client"),
        Some("app01"),
        Some("41"),
        Some("9"),
        Some("2"),
    ])])
    .unwrap();
    assert_eq!(t[0].transaction.xid, "0A0014005D3C0000");
    assert_eq!(t[0].transaction.used_urec, 12);
    let s = t[0].session.as_ref().expect("the join found the session");
    assert_eq!(
        (s.program.as_deref(), s.machine.as_deref(), s.sid, s.serial),
        (Some("JDBC Thin Client"), Some("app01"), Some(41), Some(9))
    );
    assert_eq!(s.inst_id, Some(2), "GV$ names the session's instance");
    // The outer join found no session: a transaction all the same.
    let t = transactions_from_rows(&vec![row(&[
        Some("0a0014005d3c0000"),
        Some("1000"),
        None,
        Some("12"),
        None,
        None,
        None,
        None,
        None,
        None,
        None,
    ])])
    .unwrap();
    assert!(t[0].session.is_none());
}
