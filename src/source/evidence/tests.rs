//! Evidence files read, repaired and written back.

use super::*;

use super::file::*;
use super::instance::*;
use super::read::*;
use crate::source::{
    Catalog, ColumnFacts, Dialect, InstanceFacts, KeyConstraint, LogInventory, TableFacts,
    TableName,
};

use super::catalog::*;

#[test]
fn a_file_of_another_tool_is_refused_with_a_clear_message() {
    let e = EvidenceFile::parse(r#"{"format":"other","version":1,"queries":{}}"#, "x.json")
        .unwrap_err();
    assert!(e.to_string().contains("not a cdcctl evidence file"), "{e}");
    let e = EvidenceFile::parse("SQL> select", "x.json").unwrap_err();
    assert!(e.to_string().contains("not JSON"), "{e}");
}

#[test]
fn refused_queries_leave_facts_missing_not_guessed() {
    let ev = EvidenceFile::parse(
        r#"{"format":"cdcctl-evidence","version":1,"queries":{"database":{"error":"ORA-00942"}}}"#,
        "x",
    )
    .unwrap();
    let mut c = EvidenceCatalog::from_file(&ev, "x");
    let e = c.instance().unwrap_err();
    assert!(e.to_string().contains("ORA-00942"), "{e}");
}

#[test]
fn numbers_may_arrive_as_strings_and_dates_in_either_form() {
    let r: Row = serde_json::from_str(
        r#"{"A":"42","B":42.0,"T":"2026-01-31 10:00:00","U":"2026-01-31T10:00:00"}"#,
    )
    .unwrap();
    assert_eq!(num(&r, "A"), Some(42));
    assert_eq!(num(&r, "B"), Some(42));
    assert_eq!(time(&r, "T"), time(&r, "U"));
    assert!(time(&r, "T").is_some());
}

/// What disql prints for the DM8 script: one JSON line per row, and
/// the client's error text where the database refused a query.
const DISQL_SPOOL: &str = r#"{"format":"cdcctl-evidence","version":1,"dialect":"dm",
"collected_at":"2026-01-31 12:00:00",
"queries":{
"dm_arch_ini":[
 {"ARCH_NAME":"ARCHIVE_LOCAL1","ARCH_TYPE":"LOCAL","ARCH_DEST":"/dm\\arch \"x\"","ARCH_SPACE_LIMIT":"0","ARCH_IS_VALID":"Y"}
]
,"dm_database":[
 {"ARCH_MODE":"Y"}
]
,"dm_ini":[
 {"PARA_NAME":"ARCH_INI","PARA_VALUE":"1"}
,{"PARA_NAME":"RLOG_APPEND_LOGIC","PARA_VALUE":"1"}
,{"PARA_NAME":"MPP_INI","PARA_VALUE":null}
]
,"dm_archived_logs":[
]
,"dm_pkg":[
[-2207]:Error in line: 1
No function [SF_CHECK_SYSTEM_PACKAGE]

]
}}
"#;

#[test]
fn a_disql_spool_with_a_refused_query_reads_with_that_query_as_an_error() {
    let ev = EvidenceFile::parse(DISQL_SPOOL, "dm.json").unwrap();
    assert_eq!(ev.dialect, Dialect::Dm);
    match ev.queries.get("dm_pkg") {
        Some(QueryRows::Error { error }) => {
            assert!(
                error.starts_with("[-2207]:Error in line: 1 No function"),
                "{error}"
            )
        }
        other => panic!("{other:?}"),
    }
    let mut c = EvidenceCatalog::from_file(&ev, "dm.json");
    let i = c.instance().unwrap();
    assert_eq!(i.log_mode, "ARCHIVELOG");
    let dm = i.dm.unwrap();
    assert_eq!(dm.rlog_append_logic.as_deref(), Some("1"));
    assert_eq!(
        dm.logmnr_package_installed, None,
        "refused: unknown, not false"
    );
    assert_eq!(dm.arch_destinations[0].arch_dest, "/dm\\arch \"x\"");
    assert_eq!(dm.arch_destinations[0].arch_space_limit, 0);
    assert!(c.log_inventory().unwrap().archived.is_empty());
}

#[test]
fn a_refused_dm8_probe_is_a_missing_grant_on_its_view() {
    let text = "{\"format\":\"cdcctl-evidence\",\"version\":1,\"dialect\":\"dm\",\n\"queries\":{\n\"session\":[\n {\"USERNAME\":\"DM_CDC\"}\n]\n,\"dm_probe_arch_file\":[\n[-2106]:Error in line: 1 Invalid table or view name [V$ARCH_FILE].\n]\n,\"dm_probe_rlog\":[\n {\"N\":\"0\"}\n]\n}}\n";
    let ev = EvidenceFile::parse(text, "dm.json").unwrap();
    let mut c = EvidenceCatalog::from_file(&ev, "dm.json");
    let s = c.session().unwrap();
    assert_eq!(s.user, "DM_CDC");
    assert_eq!(s.inaccessible_objects.get("V$ARCH_FILE"), Some(&2106));
    assert!(!s.inaccessible_objects.contains_key("V$RLOG"));
}

#[test]
fn client_chatter_in_a_spool_is_not_taken_for_an_error() {
    let text = "{\"format\":\"cdcctl-evidence\",\"version\":1,\"dialect\":\"dm\",\n\"queries\":{\n\"dm_arch_ini\":[\n未选定行\n\n已用时间: 0.412(毫秒). 执行号:1203.\n]\n,\"dm_ini\":[\n {\"PARA_NAME\":\"ARCH_INI\",\"PARA_VALUE\":\"1\"}\n行数 1\n1 row fetched.\n]\n}}\n";
    let ev = EvidenceFile::parse(text, "dm.json").unwrap();
    assert_eq!(
        ev.queries.get("dm_arch_ini"),
        Some(&QueryRows::Rows(Vec::new()))
    );
    match ev.queries.get("dm_ini") {
        Some(QueryRows::Rows(r)) => assert_eq!(r.len(), 1),
        other => panic!("{other:?}"),
    }
}

#[test]
fn refused_yashandb_views_are_missing_grants() {
    let text = r#"{"format":"cdcctl-evidence","version":1,"dialect":"yashandb",
"queries":{
"session":[
 {"USERNAME":"CDC"}
]
,"ys_transactions":[
[1:22]YAS-02012 table or view does not exist
]
,"ys_servers":[
 {"SERVER_NAME":"S1","STATUS":"STARTED","CONNECT_USER":"CDC","START_SCN":"100","ERROR":null}
]
}}"#;
    let ev = EvidenceFile::parse(text, "ys.json").unwrap();
    let mut c = EvidenceCatalog::from_file(&ev, "ys.json");
    let s = c.session().unwrap();
    assert_eq!(s.user, "CDC");
    assert_eq!(
        s.inaccessible_objects.get("V$TRANSACTION"),
        Some(&2012),
        "{:?}",
        s.inaccessible_objects
    );
    assert!(!s.inaccessible_objects.contains_key("V$YSTREAM_SERVER"));
    assert_eq!(error_code("no number"), 1);
    assert_eq!(error_code("[-2106]: invalid table"), 2106);
}

#[test]
fn a_spool_cut_short_or_of_another_tool_is_not_repaired_into_evidence() {
    assert!(repair_lines("SQL> select 1\n1\n").is_none());
    let oracle = "{\"format\":\"cdcctl-evidence\",\"version\":1,\"dialect\":\"oracle\",\n\"queries\":{\n\"database\":[\nERROR at line 1:\n]\n}}";
    assert!(
        repair_lines(oracle).is_none(),
        "the Oracle script's file is JSON or nothing"
    );
    let cut = "{\"format\":\"cdcctl-evidence\",\"version\":1,\"dialect\":\"dm\",\n\"queries\":{\n\"dm_ini\":[\n {\"PARA_NAME\":\"ARCH_INI\"";
    let v = repair_lines(cut).unwrap();
    assert!(v["queries"]["dm_ini"]["error"]
        .as_str()
        .unwrap()
        .contains("ends inside"));
}

#[test]
fn facts_survive_a_trip_through_rows() {
    let inst = InstanceFacts {
        version: "19.22.0.0.0".into(),
        log_mode: "ARCHIVELOG".into(),
        supplemental_log_data_min: "YES".into(),
        cdb: true,
        ..Default::default()
    };
    let table = TableFacts {
        name: TableName {
            owner: "APP".into(),
            table: "ORDERS".into(),
        },
        columns: vec![ColumnFacts {
            name: "ID".into(),
            data_type: "NUMBER".into(),
            ..Default::default()
        }],
        constraints: vec![KeyConstraint {
            name: "PK".into(),
            constraint_type: "P".into(),
            columns: vec!["ID".into(), "X".into()],
            enabled: true,
        }],
        segment_bytes: Some(1000),
        granted: vec!["SELECT".into()],
        ..Default::default()
    };
    let ev = rows_from_facts(
        Ok(&inst),
        Err("no session".into()),
        Ok(std::slice::from_ref(&table)),
        Ok(&[]),
        Ok(&LogInventory::default()),
        "test",
    );
    let text = serde_json::to_string(&ev).unwrap();
    let mut back = EvidenceCatalog::from_file(&EvidenceFile::parse(&text, "t").unwrap(), "t");
    let i = back.instance().unwrap();
    assert_eq!(
        (i.version.as_str(), i.cdb, i.log_mode.as_str()),
        ("19.22.0.0.0", true, "ARCHIVELOG")
    );
    assert_eq!(back.tables(&[]).unwrap(), vec![table]);
    assert!(back.session().is_err());
}
