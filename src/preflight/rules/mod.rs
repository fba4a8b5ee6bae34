//! The rules: one pure function per check id, from facts to an outcome.
//! Thresholds come from the check's catalog file.

pub(crate) mod config;
mod config_values;
mod dm;
mod instance;
mod multitenant;
mod privileges;
pub use privileges::REQUIRED_OBJECTS;
mod redo;
pub mod snapshot;
pub(crate) mod tables;
mod yashandb;

use crate::preflight::defs::CheckDef;
use crate::preflight::facts::Facts;
use crate::preflight::model::Outcome;
use crate::source::{InstanceFacts, LogInventory, TableFacts};

/// A rule: facts and its own catalog entry in, verdict out.
pub type Rule = fn(&Facts, &CheckDef) -> Outcome;

/// The rule implementing a catalog id.
pub fn rule_for(id: &str) -> Option<Rule> {
    let r: Rule = match id {
        "version-edition" => instance::version_edition,
        "archivelog-mode" => instance::archivelog_mode,
        "supp-min" => instance::supp_min,
        "force-logging" => instance::force_logging,
        "db-role" => instance::db_role,
        "compat-params" => instance::compat_params,
        "tde-wallet" => instance::tde_wallet,
        "rac-threads" => instance::rac_threads,
        "redo-size" => redo::redo_size,
        "switch-rate" => redo::switch_rate,
        "arch-dest" => redo::arch_dest,
        "arch-retention" => redo::arch_retention,
        "arch-gap" => redo::arch_gap,
        "arch-files-present" => redo::arch_files_present,
        "arch-format" => redo::arch_format,
        "fra-usage" => redo::fra_usage,
        "smoke-mine" => redo::smoke_mine,
        "priv-sys" => privileges::priv_sys,
        "priv-objects" => privileges::priv_objects,
        "profile" => privileges::profile,
        "priv-scope" => privileges::priv_scope,
        "cdb-mining-container" => multitenant::cdb_mining_container,
        "pdb-open" => multitenant::pdb_open,
        "container-data" => multitenant::container_data,
        "undo-vs-snapshot" => snapshot::undo_vs_snapshot,
        "long-txn" => snapshot::long_txn,
        "flashback-probe" => snapshot::flashback_probe,
        "tbl-key" => tables::tbl_key,
        "tbl-supp-log" => tables::tbl_supp_log,
        "tbl-name-len" => tables::tbl_name_len,
        "tbl-types" => tables::tbl_types,
        "tbl-lob-xml" => tables::tbl_lob_xml,
        "tbl-storage" => tables::tbl_storage,
        "tbl-recent-ddl" => tables::tbl_recent_ddl,
        "part-churn" => tables::part_churn,
        "cfg-continuous-mine" => config::continuous_mine,
        "cfg-database-name" => config::database_name,
        "cfg-service" => config::service,
        "cfg-name-case" => config::name_case,
        "cfg-chunk-key" => config::chunk_key,
        "cfg-strategy" => config::strategy,
        "cfg-archive-dest" => config::archive_dest,
        "cfg-mining-ranges" => config_values::mining_ranges,
        "cfg-password" => config_values::password,
        "cfg-chunk-size" => config::chunk_size,
        "cfg-lint" => config::lint,
        "dm-arch" => dm::arch,
        "dm-arch-dest" => dm::arch_dest,
        "dm-logic-log" => dm::logic_log,
        "dm-pkg" => dm::pkg,
        "dm-archive-only" => dm::archive_only,
        "dm-topology-ddl" => dm::topology_ddl,
        "dm-grants" => dm::grants,
        "dm-flashback" => dm::flashback,
        "dm-tbl-key" => dm::tbl_key,
        "dm-tbl-types" => dm::tbl_types,
        "ys-pool" => yashandb::pool,
        "ys-arch-supp" => yashandb::arch_supp,
        "ys-server" => yashandb::server,
        "ys-grants" => yashandb::grants,
        "ys-startscn-hygiene" => yashandb::startscn_hygiene,
        "ys-types" => yashandb::types,
        "ys-config" => yashandb::config,
        _ => return None,
    };
    Some(r)
}

/// Short-circuits a rule with a skip when a fact is missing.
macro_rules! need {
    ($facts:expr, $field:ident, $name:literal) => {
        match $facts.$field.as_ref() {
            Some(v) => v,
            None => return $crate::preflight::model::Outcome::skip($facts.missing_reason($name)),
        }
    };
}
pub(crate) use need;

/// Skips when no connector config was given.
macro_rules! need_config {
    ($facts:expr) => {
        match $facts.config.as_ref() {
            Some(c) => c,
            None => {
                return $crate::preflight::model::Outcome::skip(
                    "no connector config given (--config FILE)",
                )
            }
        }
    };
}
pub(crate) use need_config;

pub(crate) fn inst(f: &Facts) -> Option<&InstanceFacts> {
    f.instance.as_ref()
}

pub(crate) fn inv(f: &Facts) -> Option<&LogInventory> {
    f.inventory.as_ref()
}

pub(crate) fn scoped(f: &Facts) -> &[TableFacts] {
    f.tables.as_deref().unwrap_or(&[])
}

pub(crate) fn gib(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1024.0 * 1024.0 * 1024.0 {
        format!("{:.1} GiB", b / 1024.0 / 1024.0 / 1024.0)
    } else {
        format!("{:.0} MiB", b / 1024.0 / 1024.0)
    }
}

/// Whether database-level ALL COLUMNS supplemental logging is on.
pub(crate) fn db_all_columns(f: &Facts) -> bool {
    inst(f).is_some_and(|i| i.supplemental_log_data_all)
}

/// Whether a data type is a LOB, XML or spatial type.
pub(crate) fn is_lob_like(data_type: &str) -> bool {
    matches!(
        data_type,
        "CLOB" | "NCLOB" | "BLOB" | "XMLTYPE" | "SDO_GEOMETRY"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preflight::config::ConnectorConfig;
    use crate::preflight::defs;
    use crate::preflight::model::Status;
    use crate::preflight::smoke::{MinedLog, SmokeFailure};
    use crate::source::{
        ArchivedLog, OpenTransaction, PdbFacts, SessionFacts, SessionTransaction, SourceError,
        TransactionSession,
    };

    fn def(id: &str) -> CheckDef {
        defs::load()
            .unwrap()
            .into_iter()
            .find(|d| d.id == id)
            .unwrap()
    }

    fn cdb(version: &str) -> InstanceFacts {
        InstanceFacts {
            version: version.into(),
            cdb: true,
            db_name: "ORCLCDB".into(),
            pdbs: vec![PdbFacts {
                name: "ORCLPDB1".into(),
                con_id: 3,
                open_mode: "READ WRITE".into(),
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    fn local_user_in_pdb() -> SessionFacts {
        SessionFacts {
            user: "CDCUSER".into(),
            con_name: "ORCLPDB1".into(),
            common_user: false,
            ..Default::default()
        }
    }

    fn run(id: &str, facts: &Facts) -> Status {
        (rule_for(id).unwrap())(facts, &def(id)).status
    }

    #[test]
    fn per_pdb_mining_fails_on_19c_and_passes_from_21c() {
        let mut f = Facts {
            instance: Some(cdb("19.22.0.0.0")),
            session: Some(local_user_in_pdb()),
            ..Default::default()
        };
        assert_eq!(run("cdb-mining-container", &f), Status::Fail);
        f.instance = Some(cdb("21.3.0.0.0"));
        assert_eq!(run("cdb-mining-container", &f), Status::Pass);
        f.instance = Some(cdb("12.1.0.2.0"));
        assert_eq!(run("cdb-mining-container", &f), Status::Fail);
    }

    fn with_config(version: &str, text: &str) -> Facts {
        Facts {
            instance: Some(cdb(version)),
            config: Some(ConnectorConfig::parse("c.sql", text).unwrap()),
            ..Default::default()
        }
    }

    #[test]
    fn continuous_mine_fails_from_19c_warns_on_12_2_and_passes_on_11g() {
        let cfg =
            "WITH ('connector' = 'oracle-cdc', 'debezium.log.mining.continuous.mine' = 'true')";
        assert_eq!(
            run("cfg-continuous-mine", &with_config("19.3.0.0.0", cfg)),
            Status::Fail
        );
        assert_eq!(
            run("cfg-continuous-mine", &with_config("23.4.0.24.5", cfg)),
            Status::Fail
        );
        assert_eq!(
            run("cfg-continuous-mine", &with_config("12.2.0.1.0", cfg)),
            Status::Warn
        );
        assert_eq!(
            run("cfg-continuous-mine", &with_config("11.2.0.4.0", cfg)),
            Status::Pass
        );
        let off = "WITH ('connector' = 'oracle-cdc')";
        assert_eq!(
            run("cfg-continuous-mine", &with_config("19.3.0.0.0", off)),
            Status::Pass
        );
    }

    #[test]
    fn flink_database_name_stays_the_cdb_and_the_pdb_goes_in_debezium_pdb_name() {
        let pdb = "WITH ('connector' = 'oracle-cdc', 'database-name' = 'ORCLPDB1')";
        assert_eq!(
            run("cfg-database-name", &with_config("19.3.0.0.0", pdb)),
            Status::Fail
        );
        let root = "WITH ('connector' = 'oracle-cdc', 'database-name' = 'ORCLCDB')";
        assert_eq!(
            run("cfg-database-name", &with_config("19.3.0.0.0", root)),
            Status::Fail
        );
        let both = "WITH ('connector' = 'oracle-cdc', 'database-name' = 'ORCLCDB', 'debezium.database.pdb.name' = 'ORCLPDB1')";
        assert_eq!(
            run("cfg-database-name", &with_config("19.3.0.0.0", both)),
            Status::Pass
        );
    }

    fn remediation(id: &str, facts: &Facts) -> String {
        (rule_for(id).unwrap())(facts, &def(id))
            .remediation
            .unwrap_or_default()
    }

    #[test]
    fn database_name_remediation_names_this_cdb_and_its_pdb() {
        let pdb = "WITH ('connector' = 'oracle-cdc', 'database-name' = 'orclpdb1')";
        assert_eq!(
            remediation("cfg-database-name", &with_config("19.3.0.0.0", pdb)),
            "'database-name' = 'ORCLCDB',\n'debezium.database.pdb.name' = 'ORCLPDB1'"
        );
        let debezium =
            "database.dbname=ORCLCDB\nconnector.class=io.debezium.connector.oracle.OracleConnector";
        let fix = remediation("cfg-database-name", &with_config("19.3.0.0.0", debezium));
        assert_eq!(fix, "database.dbname=ORCLCDB\ndatabase.pdb.name=ORCLPDB1");
        let mut f = with_config(
            "19.3.0.0.0",
            "WITH ('connector' = 'oracle-cdc', 'debezium.database.pdb.name' = 'X')",
        );
        if let Some(i) = f.instance.as_mut() {
            i.cdb = false;
        }
        assert_eq!(
            remediation("cfg-database-name", &f),
            "remove 'debezium.database.pdb.name': ORCLCDB is not a container database"
        );
    }

    #[test]
    fn debezium_database_name_naming_the_pdb_next_to_pdb_name_fails_issue36() {
        let pdb = "connector.class=io.debezium.connector.oracle.OracleConnector\n\
                   database.dbname=ORCLPDB1\ndatabase.pdb.name=ORCLPDB1";
        let f = with_config("19.3.0.0.0", pdb);
        let o = (rule_for("cfg-database-name").unwrap())(&f, &def("cfg-database-name"));
        assert_eq!(o.status, Status::Fail, "{o:?}");
        let says = "database.dbname = ORCLPDB1 names a PDB: with database.pdb.name set, database.dbname must be the CDB (ORCLCDB)";
        assert!(o.detail.contains(says), "{o:?}");
        assert_eq!(
            o.remediation.as_deref(),
            Some("database.dbname=ORCLCDB\ndatabase.pdb.name=ORCLPDB1")
        );
        let cdb = pdb.replace("dbname=ORCLPDB1", "dbname=ORCLCDB");
        assert_eq!(
            run("cfg-database-name", &with_config("19.3.0.0.0", &cdb)),
            Status::Pass
        );
    }

    fn mining_ranges(text: &str) -> (String, String) {
        let o = (rule_for("cfg-mining-ranges").unwrap())(
            &with_config("19.3.0.0.0", text),
            &def("cfg-mining-ranges"),
        );
        (o.detail, o.remediation.unwrap_or_default())
    }

    #[test]
    fn mining_ranges_fix_the_value_at_fault_not_the_one_it_is_compared_with_issue36() {
        let (detail, fix) = mining_ranges(
            "log.mining.batch.size.max=10\nlog.mining.session.max.ms=600000\nconnector.class=x",
        );
        assert!(
            detail.contains("log.mining.batch.size.max = 10 is the value at fault (the only value whose Debezium default restores the order); raise it to 100000"),
            "{detail}"
        );
        assert_eq!(fix, "log.mining.batch.size.max=100000");
        // Both the min and the default could move; the min is far off its default.
        let (detail, fix) = mining_ranges(
            "WITH ('connector' = 'oracle-cdc', 'debezium.log.mining.batch.size.min' = '15000', \
             'debezium.log.mining.batch.size.default' = '2000', 'debezium.log.mining.session.max.ms' = '1')",
        );
        assert!(detail.contains("(of the values whose Debezium default restores the order, the furthest from it); lower it to 1000"), "{detail}");
        assert_eq!(fix, "'debezium.log.mining.batch.size.min' = '1000'");
    }

    #[test]
    fn compat_params_remediation_names_the_release_and_the_lob_key() {
        let mut f = with_config(
            "19.22.0.0.0",
            "WITH ('connector' = 'oracle-cdc', 'database-name' = 'ORCLCDB')",
        );
        if let Some(i) = f.instance.as_mut() {
            i.parameters = [("compatible", "12.2.0"), ("max_string_size", "EXTENDED")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
        }
        assert_eq!(run("compat-params", &f), Status::Warn);
        let fix = remediation("compat-params", &f);
        assert!(
            fix.starts_with(
                "ALTER SYSTEM SET compatible = '19.0.0' SCOPE = SPFILE;  -- from 12.2.0"
            ),
            "{fix}"
        );
        assert!(fix.ends_with("'debezium.lob.enabled' = 'true'"), "{fix}");
        assert!(!fix.contains('<'), "no placeholder left: {fix}");
    }

    /// A 19c CDB with 900 s of undo that cannot grow and one 100 GiB table
    /// of 100 million rows (about 1 KiB a row).
    fn big_table_on_small_undo(config: Option<&str>) -> Facts {
        let mut f = match config {
            Some(text) => with_config("19.22.0.0.0", text),
            None => Facts {
                instance: Some(cdb("19.22.0.0.0")),
                ..Default::default()
            },
        };
        if let Some(i) = f.instance.as_mut() {
            i.undo.tuned_undoretention_s = Some(900);
        }
        f.tables = Some(vec![TableFacts {
            name: crate::source::TableName {
                owner: "APP".into(),
                table: "BIG".into(),
            },
            segment_bytes: Some(100 << 30),
            num_rows: Some(100_000_000),
            ..Default::default()
        }]);
        f
    }

    fn undo_outcome(f: &Facts) -> Outcome {
        (rule_for("undo-vs-snapshot").unwrap())(f, &def("undo-vs-snapshot"))
    }

    #[test]
    fn a_chunked_snapshot_needs_only_a_chunk_to_fit_in_undo_and_says_so() {
        let f = big_table_on_small_undo(None);
        let o = undo_outcome(&f);
        assert_eq!(o.status, Status::Pass, "{o:?}");
        let says = o.evidence.join("\n");
        assert!(
            says.contains("APP.BIG: 100.0 GiB, 100000000 rows, about 35 min to read"),
            "{says}"
        );
        assert!(
            says.contains("cdcctl run (--snapshot-chunk-rows) reads chunks of 10000 rows, each at its own SCN: only a chunk must fit"),
            "{says}"
        );
        // A chunk of 10,000 rows takes under a second; one of 100 million
        // rows (the whole table, about 34 min) does not fit in 900 s.
        let mut f = big_table_on_small_undo(None);
        f.options.snapshot_chunk_rows = 100_000_000;
        let o = undo_outcome(&f);
        assert_eq!(o.status, Status::Fail, "{o:?}");
        assert!(
            o.detail
                .starts_with("the largest snapshot chunk (~2047 s) outlasts"),
            "{}",
            o.detail
        );
        assert!(
            o.remediation.as_deref().is_some_and(
                |r| r.contains("or smaller chunks: cdcctl run (--snapshot-chunk-rows)")
            ),
            "{o:?}"
        );
    }

    #[test]
    fn debezium_reads_each_table_whole_so_the_whole_snapshot_must_fit_in_undo() {
        let f = big_table_on_small_undo(Some(
            "connector.class=io.debezium.connector.oracle.OracleConnector\ndatabase.dbname=ORCLCDB",
        ));
        let o = undo_outcome(&f);
        assert_eq!(o.status, Status::Fail, "{o:?}");
        assert!(
            o.detail.starts_with("the snapshot (~2048 s) outlasts"),
            "{}",
            o.detail
        );
        assert!(
            o.evidence
                .iter()
                .any(|e| e.starts_with("Debezium's initial snapshot reads each table whole")),
            "{o:?}"
        );
        let flink = big_table_on_small_undo(Some(
            "WITH ('connector' = 'oracle-cdc', 'scan.incremental.snapshot.chunk.size' = '4096')",
        ));
        let o = undo_outcome(&flink);
        assert_eq!(o.status, Status::Pass, "{o:?}");
        assert!(
            o.evidence
                .iter()
                .any(|e| e.contains("reads chunks of 4096 rows, each a query of its own")),
            "{o:?}"
        );
        let off = big_table_on_small_undo(Some(
            "WITH ('connector' = 'oracle-cdc', 'scan.incremental.snapshot.enabled' = 'false')",
        ));
        assert_eq!(undo_outcome(&off).status, Status::Fail);
    }

    #[test]
    fn logmining_privilege_is_required_only_from_12c() {
        let session = |privs: &[&str]| SessionFacts {
            user: "U".into(),
            privileges: privs.iter().map(|p| p.to_string()).collect(),
            roles: vec!["SELECT_CATALOG_ROLE".into(), "EXECUTE_CATALOG_ROLE".into()],
            ..Default::default()
        };
        let base = [
            "CREATE SESSION",
            "SELECT ANY TRANSACTION",
            "SELECT ANY TABLE",
            "FLASHBACK ANY TABLE",
        ];
        let mut non_cdb = cdb("11.2.0.4.0");
        non_cdb.cdb = false;
        let mut f = Facts {
            instance: Some(non_cdb.clone()),
            session: Some(session(&base)),
            ..Default::default()
        };
        assert_eq!(run("priv-sys", &f), Status::Pass);
        non_cdb.version = "19.3.0.0.0".into();
        f.instance = Some(non_cdb);
        assert_eq!(run("priv-sys", &f), Status::Fail, "19c needs LOGMINING");
    }

    #[test]
    fn missing_facts_skip_with_the_reason_instead_of_guessing() {
        let mut f = Facts::default();
        f.missing
            .insert("instance", "ORA-00942: table or view does not exist".into());
        let o = (rule_for("archivelog-mode").unwrap())(&f, &def("archivelog-mode"));
        assert_eq!(o.status, Status::Skip);
        assert!(o.detail.contains("ORA-00942"), "{}", o.detail);
    }

    fn at(hhmm: &str) -> chrono::NaiveDateTime {
        chrono::NaiveDateTime::parse_from_str(&format!("2026-01-31 {hhmm}"), "%Y-%m-%d %H:%M")
            .unwrap()
    }

    fn txn(
        xid: &str,
        scn: u64,
        start: &str,
        session: Option<(u64, u64, Option<u32>)>,
    ) -> SessionTransaction {
        SessionTransaction {
            transaction: OpenTransaction {
                xid: xid.into(),
                start_scn: scn,
                start_time: Some(at(start)),
                used_urec: 3,
                username: Some("APP".into()),
                con_name: None,
            },
            session: session.map(|(sid, serial, inst_id)| TransactionSession {
                sid: Some(sid),
                serial: Some(serial),
                username: Some("APP".into()),
                program: Some("JDBC Thin Client".into()),
                machine: Some("app01".into()),
                inst_id,
            }),
        }
    }

    fn with_clock(cluster: bool) -> InstanceFacts {
        let mut i = cdb("19.22.0.0.0");
        i.now = Some(at("12:00"));
        i.parameters.insert(
            "cluster_database".into(),
            if cluster { "TRUE" } else { "FALSE" }.into(),
        );
        i
    }

    #[test]
    fn long_transactions_name_the_session_to_kill() {
        let f = Facts {
            instance: Some(with_clock(false)),
            transactions: Some(vec![
                txn("0A00", 100, "11:00", Some((41, 9, None))),
                txn("0B00", 200, "11:30", None),
                txn("0C00", 300, "11:59", Some((77, 1, None))),
            ]),
            ..Default::default()
        };
        let o = (rule_for("long-txn").unwrap())(&f, &def("long-txn"));
        assert_eq!(o.status, Status::Warn);
        let fix = o.remediation.unwrap();
        assert!(fix.contains("ALTER SYSTEM KILL SESSION '41,9';"), "{fix}");
        assert!(
            fix.contains("XID 0A00, START_SCN 100, open 60 min"),
            "{fix}"
        );
        assert!(fix.contains("JDBC Thin Client on app01"), "{fix}");
        // Open 30 min without a session row: how to find it, not a guess.
        assert!(fix.contains("HEXTORAW('0B00')"), "{fix}");
        // Open one minute: not one that holds capture back.
        assert!(!fix.contains("'77,1'"), "{fix}");
        assert!(!fix.contains("sid,serial#"), "no placeholder left: {fix}");
    }

    #[test]
    fn on_rac_the_kill_names_the_instance() {
        let mut f = Facts {
            instance: Some(with_clock(true)),
            transactions: Some(vec![txn("0A00", 100, "11:00", Some((41, 9, Some(2))))]),
            ..Default::default()
        };
        let fix = |f: &Facts| {
            (rule_for("long-txn").unwrap())(f, &def("long-txn"))
                .remediation
                .unwrap()
        };
        assert!(
            fix(&f).contains("ALTER SYSTEM KILL SESSION '41,9,@2';"),
            "{}",
            fix(&f)
        );
        f.instance = Some(with_clock(false));
        assert!(
            fix(&f).contains("ALTER SYSTEM KILL SESSION '41,9';"),
            "a single instance takes no @: {}",
            fix(&f)
        );
    }

    #[test]
    fn retention_remediation_says_days_kept_and_needed() {
        let mut i = with_clock(false);
        i.log_mode = "ARCHIVELOG".into();
        let archived = |seq: u64, first: &str, deleted: bool| ArchivedLog {
            name: (!deleted).then(|| format!("/arch/1_{seq}.arc")),
            dest_id: 1,
            thread: 1,
            sequence: seq,
            first_change: seq * 100,
            next_change: seq * 100 + 100,
            first_time: Some(at(first)),
            status: if deleted { "D" } else { "A" }.into(),
            deleted,
            archived: true,
            ..Default::default()
        };
        let f = Facts {
            instance: Some(i),
            inventory: Some(LogInventory {
                archived: vec![archived(1, "00:00", true), archived(2, "00:00", false)],
                ..Default::default()
            }),
            ..Default::default()
        };
        let o = (rule_for("arch-retention").unwrap())(&f, &def("arch-retention"));
        assert_eq!(o.status, Status::Fail);
        let fix = o.remediation.unwrap();
        assert!(fix.contains("kept 12.0 h now"), "{fix}");
        assert!(fix.contains("keep at least 3 day(s) (72 h)"), "{fix}");
        assert!(fix.contains("'SYSDATE-3'"), "{fix}");
    }

    #[test]
    fn a_local_user_is_told_the_common_user_to_create() {
        let f = Facts {
            instance: Some(cdb("19.22.0.0.0")),
            session: Some(local_user_in_pdb()),
            ..Default::default()
        };
        let o = (rule_for("cdb-mining-container").unwrap())(&f, &def("cdb-mining-container"));
        let fix = o.remediation.unwrap();
        assert!(fix.contains("CREATE USER C##CDCUSER "), "{fix}");
        assert!(fix.contains("TO C##CDCUSER CONTAINER=ALL;"), "{fix}");
        assert!(fix.contains("database.pdb.name = ORCLPDB1"), "{fix}");
    }

    fn smoke_failed(f: &mut Facts, error: SourceError, logs: Vec<MinedLog>) -> String {
        f.smoke = Some(Err(SmokeFailure { error, logs }));
        let o = (rule_for("smoke-mine").unwrap())(f, &def("smoke-mine"));
        assert_eq!(o.status, Status::Fail);
        assert!(
            !o.evidence.iter().any(|e| e.contains("cdcctl preflight")),
            "preflight does not send the reader to preflight: {o:?}"
        );
        o.remediation.expect("a remediation for the error")
    }

    /// Issue 36: the advice was "run `cdcctl preflight` to list the missing grants".
    #[test]
    fn smoke_mine_remediation_follows_the_error() {
        let log = MinedLog {
            name: "/arch/1_7.arc".into(),
            thread: 1,
            sequence: 7,
        };
        let mut f = Facts {
            instance: Some(cdb("19.22.0.0.0")),
            session: Some(local_user_in_pdb()),
            inventory: Some(LogInventory {
                archived: vec![ArchivedLog {
                    name: Some(log.name.clone()),
                    thread: 1,
                    sequence: 7,
                    ..Default::default()
                }],
                ..Default::default()
            }),
            ..Default::default()
        };
        let missing = smoke_failed(
            &mut f,
            SourceError::oracle(1291, "missing logfile"),
            vec![log.clone()],
        );
        assert!(
            missing.contains("RESTORE ARCHIVELOG SEQUENCE 7 THREAD 1;"),
            "{missing}"
        );
        let grants = smoke_failed(
            &mut f,
            SourceError::oracle(1031, "insufficient privileges"),
            vec![],
        );
        assert!(grants.contains("GRANT LOGMINING TO c##dbzuser"), "{grants}");
        let container = smoke_failed(&mut f, SourceError::oracle(65040, "in a PDB"), vec![]);
        assert!(container.contains("CREATE USER C##CDCUSER"), "{container}");
        f.instance = Some(InstanceFacts {
            version: "11.2.0.4.0".into(),
            ..Default::default()
        });
        let old = smoke_failed(
            &mut f,
            SourceError::oracle(1031, "insufficient privileges"),
            vec![],
        );
        assert!(old.contains("GRANT EXECUTE_CATALOG_ROLE"), "{old}");
        assert!(!old.contains("LOGMINING"), "11g has no LOGMINING: {old}");
        assert_ne!(missing, grants);
    }

    fn dm_table(name: &str, key: bool, types: &[&str]) -> crate::source::TableFacts {
        use crate::source::{ColumnFacts, KeyConstraint, TableFacts, TableName};
        TableFacts {
            name: TableName {
                owner: "CDC_TEST".into(),
                table: name.into(),
            },
            columns: types
                .iter()
                .enumerate()
                .map(|(i, t)| ColumnFacts {
                    name: format!("C{i}"),
                    data_type: (*t).into(),
                    ..Default::default()
                })
                .collect(),
            constraints: key
                .then(|| KeyConstraint {
                    name: "PK".into(),
                    constraint_type: "P".into(),
                    columns: vec!["C0".into()],
                    enabled: true,
                })
                .into_iter()
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn dm8_grants_fail_per_unreadable_view_and_leave_a_missing_package_to_dm_pkg() {
        let mut session = SessionFacts {
            user: "DM_CDC".into(),
            ..Default::default()
        };
        let instance = |installed| InstanceFacts {
            dialect: crate::source::Dialect::Dm,
            dm: Some(crate::source::DmFacts {
                logmnr_package_installed: Some(installed),
                ..Default::default()
            }),
            ..Default::default()
        };
        let mut f = Facts {
            instance: Some(instance(true)),
            session: Some(session.clone()),
            ..Default::default()
        };
        let out = (rule_for("dm-grants").unwrap())(&f, &def("dm-grants"));
        assert_eq!(out.status, Status::Pass);
        assert!(out.detail.contains("DM_CDC"), "{}", out.detail);
        assert!(out
            .evidence
            .iter()
            .any(|e| e.contains("every change of every table")));

        session
            .inaccessible_objects
            .insert("V$ARCH_FILE".into(), 2106);
        session
            .inaccessible_objects
            .insert("DBMS_LOGMNR".into(), 2207);
        f.session = Some(session);
        let out = (rule_for("dm-grants").unwrap())(&f, &def("dm-grants"));
        assert_eq!(out.status, Status::Fail);
        assert!(out.detail.contains("V$ARCH_FILE") && out.detail.contains("DBMS_LOGMNR"));

        f.instance = Some(instance(false));
        let out = (rule_for("dm-grants").unwrap())(&f, &def("dm-grants"));
        assert_eq!(out.status, Status::Fail);
        assert!(!out.detail.contains("DBMS_LOGMNR"), "{}", out.detail);
    }

    #[test]
    fn dm8_snapshot_needs_flashback_on_and_warns_on_a_short_undo_retention_issue34() {
        let instance = |flashback: Option<&str>, retention: &str| {
            let mut i = InstanceFacts {
                dialect: crate::source::Dialect::Dm,
                dm: Some(crate::source::DmFacts::default()),
                ..Default::default()
            };
            if let Some(v) = flashback {
                i.parameters.insert("enable_flashback".into(), v.into());
            }
            i.parameters
                .insert("undo_retention".into(), retention.into());
            i
        };
        let run = |flashback, retention| {
            let f = Facts {
                instance: Some(instance(flashback, retention)),
                ..Default::default()
            };
            (rule_for("dm-flashback").unwrap())(&f, &def("dm-flashback"))
        };
        let off = run(Some("0"), "900.000000");
        assert_eq!(off.status, Status::Fail);
        assert!(off.detail.contains("--snapshot never"), "{}", off.detail);
        assert_eq!(run(Some("1"), "90.000000").status, Status::Pass);
        let short = run(Some("1"), "30.000000");
        assert_eq!(short.status, Status::Warn);
        assert!(short.detail.contains("-9801"), "{}", short.detail);
        assert_eq!(run(None, "90").status, Status::Skip);
        // What `run` refuses a snapshot for, the same facts.
        use crate::preflight::startup::snapshot_stop;
        assert!(snapshot_stop(&instance(Some("0"), "90")).is_some());
        assert!(snapshot_stop(&instance(None, "90")).is_some());
        assert!(snapshot_stop(&instance(Some("1"), "90")).is_none());
        assert!(snapshot_stop(&InstanceFacts::default()).is_none());
    }

    #[test]
    fn dm8_simulated_user_without_select_on_v_trx_fails_dm_grants_and_the_default_user_passes_issue34(
    ) {
        use crate::source::sim::{Clock, Scenario, Sim, BUILTINS};
        let grants = |edit: Option<(&str, &str)>| {
            let b = BUILTINS.iter().find(|b| b.name == "dm8").expect("dm8");
            let text = match edit {
                Some((from, to)) => b.text.replacen(from, to, 1),
                None => b.text.to_string(),
            };
            let scenario = Scenario::parse(&text, "dm8 variant").expect("a valid variant");
            let mut sim = Sim::new(scenario, Clock::default());
            let options = crate::preflight::facts::RuleOptions::default();
            let f = Facts::gather(&mut sim, &[], None, options, |_| {}).expect("facts");
            (rule_for("dm-grants").unwrap())(&f, &def("dm-grants"))
        };
        let default = grants(None);
        assert_eq!(default.status, Status::Pass, "{}", default.detail);
        let without = grants(Some((
            "user = \"CDC\"",
            "user = \"CDC\"\nprivileges = [\"CREATE SESSION\", \"EXECUTE ON SYS.DBMS_LOGMNR\", \
             \"SELECT ON SYS.V$LOGMNR_CONTENTS\", \"SELECT ON SYS.V$ARCH_FILE\", \
             \"SELECT ON SYS.V$RLOG\", \"SELECT ON SYS.V$DM_INI\"]",
        )));
        assert_eq!(without.status, Status::Fail, "{}", without.detail);
        assert!(without.detail.contains("V$TRX"), "{}", without.detail);
        assert!(def("dm-grants")
            .remediation
            .contains("GRANT SELECT ON SYS.V$TRX"));
    }

    #[test]
    fn dm8_keyless_tables_warn_and_name_the_table() {
        let mut f = Facts {
            tables: Some(vec![dm_table("T_BASIC", true, &["INT"])]),
            ..Default::default()
        };
        assert_eq!(run("dm-tbl-key", &f), Status::Pass);
        f.tables = Some(vec![
            dm_table("T_BASIC", true, &["INT"]),
            dm_table("T_NO_PK", false, &["INT"]),
        ]);
        let out = (rule_for("dm-tbl-key").unwrap())(&f, &def("dm-tbl-key"));
        assert_eq!(out.status, Status::Warn);
        assert!(out.detail.contains("CDC_TEST.T_NO_PK"), "{}", out.detail);
        assert!(!out.detail.contains("T_BASIC"), "{}", out.detail);
    }

    #[test]
    fn dm8_lob_columns_warn_that_large_values_are_never_logged() {
        let mut f = Facts {
            tables: Some(vec![dm_table(
                "T_BASIC",
                true,
                &["INT", "VARCHAR(50)", "DOUBLE"],
            )]),
            ..Default::default()
        };
        assert_eq!(run("dm-tbl-types", &f), Status::Pass);
        f.tables = Some(vec![dm_table(
            "T_LOB",
            true,
            &["INT", "CLOB", "blob", "TEXT"],
        )]);
        let out = (rule_for("dm-tbl-types").unwrap())(&f, &def("dm-tbl-types"));
        assert_eq!(out.status, Status::Warn);
        assert!(
            out.detail.contains("C1 CLOB, C2 blob, C3 TEXT"),
            "{}",
            out.detail
        );
        assert!(out.detail.contains("OUT_CLOB"), "{}", out.detail);
    }
}
