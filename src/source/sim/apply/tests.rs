//! The statement recogniser: each statement form the remediation uses
//! changes the facts preflight reads, Oracle's errors for the wrong
//! container, the wrong order and the wrong release, and the statements
//! it does not model reported as such.

use super::*;
use crate::source::sim::scenario::{LogMode, PartitionKind, SuppLevel};
use crate::source::{Catalog, TablePattern};

fn sim(name: &str) -> Sim {
    Sim::from_spec(name).expect("a built-in scenario")
}

fn outcomes(r: &ApplyReport) -> Vec<Outcome> {
    r.results.iter().map(|x| x.outcome.clone()).collect()
}

fn error_code(r: &ApplyReport) -> Option<u32> {
    r.failures().first().map(|(_, e)| e.code)
}

#[test]
fn the_splitter_takes_statements_blocks_and_sqlplus_commands() {
    let s = statements(
        "-- prose\nWHENEVER SQLERROR EXIT FAILURE\nGRANT X\n  TO Y;  -- why\n\
         BEGIN\n  dbms_x.y('a;b');\nEND;\n/\nSELECT '--not a comment' FROM dual;\nSTARTUP MOUNT",
    );
    let texts: Vec<&str> = s.iter().map(|x| x.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "WHENEVER SQLERROR EXIT FAILURE",
            "GRANT X TO Y",
            "BEGIN dbms_x.y('a;b'); END",
            "SELECT '--not a comment' FROM dual",
            "STARTUP MOUNT"
        ]
    );
    assert_eq!(s[1].line, 3);
}

#[test]
fn grants_reach_the_capture_users_privileges_roles_and_tables() {
    let mut s = sim("missing-grants");
    let r = s.apply_script(
        "GRANT LOGMINING, SELECT ANY TRANSACTION TO C##CDCCTL CONTAINER=ALL;\n\
         GRANT EXECUTE_CATALOG_ROLE TO C##CDCCTL CONTAINER=ALL;\n\
         GRANT EXECUTE ON SYS.DBMS_LOGMNR TO C##CDCCTL CONTAINER=ALL;\n\
         ALTER SESSION SET CONTAINER = ORCLPDB1;\n\
         GRANT SELECT, FLASHBACK ON APP.ORDERS TO C##CDCCTL;\n\
         ALTER SESSION SET CONTAINER = CDB$ROOT;",
    );
    assert!(
        r.failures().is_empty() && r.not_applied().is_empty(),
        "{r:?}"
    );
    let session = s.session().expect("session facts");
    assert!(session.has_privilege("LOGMINING"));
    assert!(session.roles.iter().any(|x| x == "EXECUTE_CATALOG_ROLE"));
    assert!(s
        .model
        .scenario
        .connection
        .execute_on
        .iter()
        .any(|x| x == "SYS.DBMS_LOGMNR"));
    s.set_pdb(Some("ORCLPDB1")).expect("the PDB");
    let orders = s
        .tables(&[TablePattern::parse("APP.ORDERS").expect("a pattern")])
        .expect("tables");
    assert_eq!(orders[0].granted, ["SELECT", "FLASHBACK"]);
    assert_eq!(orders[0].flashback_probe_error, None);
}

#[test]
fn a_grant_on_a_pdb_table_from_the_root_fails_with_ora_00942() {
    let mut s = sim("missing-grants");
    let r = s.apply_script("WHENEVER SQLERROR EXIT FAILURE\nGRANT SELECT ON APP.ORDERS TO C##CDCCTL;\nGRANT LOGMINING TO C##CDCCTL;");
    assert_eq!(error_code(&r), Some(942));
    assert_eq!(
        r.results.len(),
        2,
        "WHENEVER SQLERROR EXIT stops the script"
    );
    assert!(
        !s.privileges.iter().any(|p| p == "LOGMINING"),
        "the grant after the failure did not run"
    );
}

#[test]
fn common_ddl_outside_the_root_and_unknown_grantees_fail_as_oracle_does() {
    let mut s = sim("demo");
    let r = s.apply_script(
        "ALTER SESSION SET CONTAINER = ORCLPDB1;\nGRANT LOGMINING TO C##CDCCTL CONTAINER=ALL;",
    );
    assert_eq!(error_code(&r), Some(65050));
    let r = sim("demo").apply_script("GRANT LOGMINING TO NOBODY;");
    assert_eq!(error_code(&r), Some(1917));
    let r = sim("demo").apply_script("ALTER SESSION SET CONTAINER = NOPDB;");
    assert_eq!(error_code(&r), Some(65011));
    let r = sim("oracle11g").apply_script("GRANT LOGMINING TO SINFOR;");
    assert_eq!(error_code(&r), Some(990), "LOGMINING exists from 12c");
    let r = sim("oracle11g").apply_script("GRANT SELECT ANY TABLE TO SINFOR CONTAINER=ALL;");
    assert_eq!(error_code(&r), Some(65090), "CONTAINER= needs a CDB");
}

#[test]
fn a_profile_in_the_root_needs_c_prefix_and_a_user_takes_its_limits() {
    let mut s = sim("demo");
    let r = s.apply_script("CREATE PROFILE CDC_PROFILE LIMIT PASSWORD_LIFE_TIME UNLIMITED;");
    assert_eq!(error_code(&r), Some(65140));
    let r = s.apply_script(
        "CREATE PROFILE C##P LIMIT IDLE_TIME UNLIMITED PASSWORD_LIFE_TIME UNLIMITED CONTAINER=ALL;\n\
         ALTER USER C##CDCCTL PROFILE C##P CONTAINER=ALL;",
    );
    assert!(r.failures().is_empty(), "{r:?}");
    let p = s.session().expect("session").profile.expect("a profile");
    assert_eq!(p.profile, "C##P");
    assert_eq!(p.password_life_time.as_deref(), Some("UNLIMITED"));
    let r = s.apply_script(
        "CREATE PROFILE C##P LIMIT IDLE_TIME 5;\nALTER USER C##CDCCTL PROFILE C##NONE;",
    );
    assert_eq!(
        r.failures().iter().map(|(_, e)| e.code).collect::<Vec<_>>(),
        [2379, 2380]
    );
}

#[test]
fn a_local_users_profile_is_made_in_its_pdb() {
    let mut s = sim("wrong-container");
    let r = s.apply_script(
        "ALTER SESSION SET CONTAINER = ORCLPDB1;\n\
         CREATE PROFILE CDC_PROFILE LIMIT PASSWORD_LIFE_TIME UNLIMITED;\n\
         ALTER USER CDCUSER PROFILE CDC_PROFILE;\n\
         ALTER SESSION SET CONTAINER = CDB$ROOT;\n\
         ALTER USER CDCUSER QUOTA UNLIMITED ON USERS;",
    );
    assert_eq!(
        error_code(&r),
        Some(1918),
        "the local user is not in the root"
    );
    let p = s.session().expect("session").profile.expect("a profile");
    assert_eq!(p.password_life_time.as_deref(), Some("UNLIMITED"));
}

#[test]
fn supplemental_logging_adds_up_at_database_and_table_level() {
    let mut s = sim("no-supplemental-logging");
    let r = s.apply_script(
        "ALTER DATABASE ADD SUPPLEMENTAL LOG DATA;\n\
         ALTER DATABASE ADD SUPPLEMENTAL LOG DATA (PRIMARY KEY) COLUMNS;\n\
         ALTER TABLE APP.ORDERS ADD SUPPLEMENTAL LOG DATA (ALL) COLUMNS;\n\
         ALTER SESSION SET CONTAINER = ORCLPDB1;\n\
         ALTER TABLE APP.ORDERS ADD SUPPLEMENTAL LOG DATA (ALL) COLUMNS;",
    );
    assert_eq!(error_code(&r), Some(942), "the table is the PDB's");
    assert_eq!(r.applied(), 4);
    assert_eq!(
        s.model.scenario.instance.supplemental_logging,
        SuppLevel::Pk
    );
    let orders = s.model.tables.iter().find(|t| t.name.table == "ORDERS");
    assert_eq!(orders.and_then(|t| t.log_group), Some(SuppLevel::All));
    assert_eq!(
        s.instance().expect("instance").supplemental_log_data_min,
        "IMPLICIT"
    );
}

#[test]
fn archivelog_needs_the_database_mounted_not_open() {
    let mut s = sim("noarchivelog");
    let r = s.apply_script("ALTER DATABASE ARCHIVELOG;");
    assert_eq!(error_code(&r), Some(1126));
    let r = s.apply_script(
        "SHUTDOWN IMMEDIATE;\nGRANT LOGMINING TO C##CDCCTL;\nSTARTUP MOUNT;\n\
         ALTER DATABASE ARCHIVELOG;\nALTER DATABASE OPEN;\nALTER DATABASE OPEN;",
    );
    assert_eq!(
        r.failures().iter().map(|(_, e)| e.code).collect::<Vec<_>>(),
        [1034, 1531]
    );
    assert_eq!(s.model.scenario.instance.log_mode, LogMode::Archivelog);
    assert_eq!(s.instance().expect("instance").log_mode, "ARCHIVELOG");
}

#[test]
fn system_parameters_and_undo_retention_change_what_v_parameter_shows() {
    let mut s = sim("undo-too-small");
    let r = s.apply_script(
        "ALTER SYSTEM SET undo_retention = 900;\n\
         ALTER SYSTEM SET db_recovery_file_dest_size = 13G SCOPE=BOTH;\n\
         ALTER SYSTEM SET log_archive_format = 'a_%t_%s_%r.arc' SCOPE=SPFILE;\n\
         ALTER TABLESPACE UNDOTBS1 RETENTION GUARANTEE;\n\
         ALTER TABLESPACE USERS RETENTION GUARANTEE;",
    );
    assert_eq!(error_code(&r), Some(959));
    let i = s.instance().expect("instance");
    assert_eq!(i.parameters["undo_retention"], "900");
    assert!(i.undo.retention_guarantee);
    assert_eq!(i.recovery_area.map(|r| r.space_limit), Some(13 << 30));
    assert_ne!(
        i.parameters["log_archive_format"], "a_%t_%s_%r.arc",
        "SCOPE=SPFILE waits for a restart"
    );
    s.apply_script("SHUTDOWN IMMEDIATE\nSTARTUP");
    assert_eq!(
        s.instance().expect("instance").parameters["log_archive_format"],
        "a_%t_%s_%r.arc"
    );
}

#[test]
fn add_partition_needs_interval_creation_stopped_first() {
    let mut s = sim("interval-partition-churn");
    let add = "ALTER TABLE APP.ORDER_HIS ADD PARTITION P_NEXT VALUES LESS THAN \
               (TO_DATE('2025-05-01 00:00:00', 'YYYY-MM-DD HH24:MI:SS')) UPDATE INDEXES;";
    let r = s.apply_script(&format!("ALTER SESSION SET CONTAINER = ORCLPDB1;\n{add}"));
    assert_eq!(error_code(&r), Some(14760));
    let r = s.apply_script(&format!(
        "ALTER SESSION SET CONTAINER = ORCLPDB1;\nALTER TABLE APP.ORDER_HIS SET INTERVAL ();\n{add}\n{add}"
    ));
    assert_eq!(error_code(&r), Some(14074), "the same bound again");
    let t = s.model.tables.iter().find(|t| t.name.table == "ORDER_HIS");
    let p = t
        .and_then(|t| t.partitioning.as_ref())
        .expect("partitioned");
    assert_eq!(p.kind, PartitionKind::Range);
    assert!(p.partitions.iter().any(|x| x.name == "P_NEXT"));
    s.apply_script(
        "ALTER SESSION SET CONTAINER = ORCLPDB1;\n\
         ALTER TABLE APP.ORDER_HIS SET INTERVAL (NUMTOYMINTERVAL(1, 'MONTH'));",
    );
    let t = s.model.tables.iter().find(|t| t.name.table == "ORDER_HIS");
    let p = t
        .and_then(|t| t.partitioning.as_ref())
        .expect("partitioned");
    assert_eq!(
        (p.kind, p.interval_months),
        (PartitionKind::Interval, Some(1))
    );
}

#[test]
fn statements_it_does_not_model_are_reported_not_applied() {
    let mut s = sim("demo");
    let r = s.apply_script(
        "ALTER DATABASE ADD LOGFILE THREAD 1 GROUP 4 SIZE 1G;\n\
         ALTER SYSTEM KILL SESSION '1,2';\nSELECT 1 FROM dual;\nPROMPT done\nEXIT\nGRANT X TO Y;",
    );
    assert_eq!(
        r.not_applied(),
        [
            "ALTER DATABASE ADD LOGFILE THREAD 1 GROUP 4 SIZE 1G",
            "ALTER SYSTEM KILL SESSION '1,2'",
            "SELECT 1 FROM dual"
        ]
    );
    assert_eq!(
        outcomes(&r)[3..],
        [Outcome::Setting, Outcome::Setting],
        "nothing after EXIT"
    );
    let r = sim("dm8").apply_script("ALTER DATABASE ADD SUPPLEMENTAL LOG DATA;");
    assert_eq!(
        r.not_applied().len(),
        1,
        "DM8's statements are not Oracle's"
    );
}

#[test]
fn a_common_user_needs_its_prefix_and_exists_once() {
    let mut s = sim("wrong-container");
    let r = s.apply_script(
        "ACCEPT pw CHAR PROMPT 'Password: ' HIDE\n\
         CREATE USER C##CDCUSER IDENTIFIED BY \"&pw\" CONTAINER=ALL;\n\
         GRANT CREATE SESSION, LOGMINING TO C##CDCUSER CONTAINER=ALL;\n\
         CREATE USER C##CDCUSER IDENTIFIED BY x CONTAINER=ALL;\n\
         CREATE USER CDC2 IDENTIFIED BY x;",
    );
    assert_eq!(
        r.failures().iter().map(|(_, e)| e.code).collect::<Vec<_>>(),
        [1920, 65096]
    );
    assert!(r.results[1].statement.contains("\"entered\""));
    assert!(s.dba.users["C##CDCUSER"].privileges.contains("LOGMINING"));
}
