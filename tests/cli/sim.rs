//! The built-in simulator end to end: scenarios, LogMiner sessions and their
//! Oracle errors, log inventory, determinism, ground truth against what the
//! SQL_REDO parser reads back, and the `cdcctl sim` commands.

use std::collections::{HashMap, HashSet};
use std::process::Command;

use crate::common::known;
use cdcctl::engine::event::{CapturedEvent, Op};
use cdcctl::engine::redo::csf::CsfAssembler;
use cdcctl::engine::redo::{parse, DmlKind};
use cdcctl::engine::row::{LogMinerRow, OperationCode, Scn};
use cdcctl::source::sim::{Clock, Scenario, Sim, BUILTINS, CSF_PIECE_BYTES};
use cdcctl::source::{
    Catalog, ContentsQuery, MiningOptions, RedoSource, SessionRequest, SourceError, TableName,
};

/// A built-in scenario whose table reads run in its PDB, as the CLI opens it.
fn sim(name: &str) -> Sim {
    Sim::from_spec(name)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .with_default_pdb()
}

/// A built-in scenario's text with more TOML appended (faults, tables).
fn builtin_plus(name: &str, toml: &str) -> String {
    let b = BUILTINS.iter().find(|b| b.name == name).unwrap();
    format!("{}\n{toml}", b.text)
}

/// A scenario's text with a few keys replaced, for variations.
fn variant(name: &str, edits: &[(&str, &str)]) -> Sim {
    let b = BUILTINS.iter().find(|b| b.name == name).unwrap();
    let mut text = b.text.to_string();
    for (from, to) in edits {
        assert!(text.contains(from), "{name} has no `{from}`");
        text = text.replacen(from, to, 1);
    }
    Sim::new(
        Scenario::parse(&text, name).unwrap(),
        Clock::Virtual { step_ms: 1000 },
    )
    .with_default_pdb()
}

fn options() -> MiningOptions {
    MiningOptions {
        dict_from_online_catalog: true,
        ..MiningOptions::default()
    }
}

/// One session over (from, to] with the logs a client would pick.
fn mine(
    s: &mut Sim,
    from: Scn,
    to: Scn,
    opts: MiningOptions,
) -> Result<Vec<LogMinerRow>, SourceError> {
    // Inside a PDB (per-PDB mining) START_LOGMNR finds the logs itself.
    let in_pdb = s.instance()?.cdb && s.session()?.con_name != "CDB$ROOT";
    let files = if in_pdb {
        Vec::new()
    } else {
        s.plan_logs(from)
    };
    s.start_session(&SessionRequest {
        log_files: files,
        start_scn: from,
        end_scn: to,
        options: opts,
    })?;
    s.query_contents(&ContentsQuery {
        from_scn: from,
        to_scn: to,
        ..ContentsQuery::default()
    })?;
    let mut rows = Vec::new();
    while s.fetch(1000, &mut rows)? > 0 {}
    s.end_session()?;
    Ok(rows)
}

fn first_scn(s: &Sim) -> Scn {
    s.scenario().instance.start_scn
}

fn ora(r: Result<impl std::fmt::Debug, SourceError>) -> u32 {
    match r {
        Err(e) => e
            .ora_code()
            .unwrap_or_else(|| panic!("no ORA- code in {e}")),
        Ok(v) => panic!("expected an ORA- error, got {v:?}"),
    }
}

#[test]
fn every_builtin_scenario_loads_and_answers_the_catalog() {
    for b in BUILTINS {
        let mut s = sim(b.name);
        let inst = s.instance().unwrap();
        assert!(inst.major_version().is_some(), "{}", b.name);
        let inv = Catalog::log_inventory(&mut s).unwrap();
        // DM8 without archiving has no file being archived to list.
        assert!(
            inv.current_log(1).is_some() || b.name == "dm8-no-arch",
            "{}: no CURRENT log",
            b.name
        );
        assert!(
            !s.tables(&[]).unwrap().is_empty() || b.name == "wrong-container",
            "{}",
            b.name
        );
        s.session().unwrap();
    }
}

#[test]
fn unknown_scenario_names_the_builtins_and_bad_file_names_key_and_line() {
    let e = Sim::from_spec("demoo").err().unwrap().to_string();
    assert!(
        e.contains("demo") && e.contains("interval-partition-churn"),
        "{e}"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    std::fs::write(
        &path,
        "[instance]\nversion = \"19c\"\n\n[connection]\nuser = \"U\"\n\n[workload]\nrate = 5.0\nmix = 3\n",
    )
    .unwrap();
    let e = Sim::from_spec(path.to_str().unwrap())
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("line 9") && e.contains("`mix`"), "{e}");
    assert!(
        e.contains("insert") && e.contains("rollback_pct"),
        "allowed keys missing: {e}"
    );
}

#[test]
fn same_seed_gives_identical_rows_and_truth() {
    let a = sim("demo");
    let b = sim("demo");
    let ra = a.all_rows();
    assert!(ra.len() > 1000);
    assert_eq!(ra, b.all_rows());
    let ta: Vec<String> = a.truth().map(CapturedEvent::to_json_line).collect();
    let tb: Vec<String> = b.truth().map(CapturedEvent::to_json_line).collect();
    assert_eq!(ta, tb);
    let c = variant("demo", &[("seed = 20250301", "seed = 7")]);
    assert_ne!(ra, c.all_rows());
}

#[test]
fn no_row_of_a_transaction_follows_its_commit_or_rollback() {
    let s = sim("demo");
    let mut ended: HashSet<String> = HashSet::new();
    let mut started: HashSet<String> = HashSet::new();
    for r in s.all_rows() {
        assert!(
            !ended.contains(&r.xid),
            "row after the end of {}: {:?}",
            r.xid,
            r.sql_redo
        );
        match r.operation_code {
            OperationCode::Start => assert!(started.insert(r.xid.clone())),
            OperationCode::Commit | OperationCode::Rollback => {
                ended.insert(r.xid.clone());
            }
            _ => {}
        }
    }
    assert!(ended.len() > 100);
}

#[test]
fn scns_never_go_back_in_redo_order_and_dml_rows_leave_scn_columns_null() {
    let s = sim("demo");
    let rows = s.all_rows();
    for w in rows.windows(2) {
        assert!(w[0].scn <= w[1].scn);
    }
    for r in &rows {
        if r.operation_code.is_dml() {
            assert_eq!((r.start_scn, r.commit_scn), (None, None));
            assert!(r.row_id.is_some() && r.data_obj.is_some() && r.data_objd.is_some());
        }
        assert_eq!(r.xid.len(), 16);
    }
}

#[test]
fn rollback_rows_undo_earlier_changes_of_the_same_transaction() {
    let s = sim("demo");
    let rows = s.all_rows();
    let undo: Vec<&LogMinerRow> = rows.iter().filter(|r| r.rollback).collect();
    assert!(!undo.is_empty(), "demo has rollbacks");
    for u in undo {
        let earlier = rows.iter().take_while(|r| r.scn < u.scn).any(|r| {
            r.xid == u.xid && !r.rollback && r.row_id == u.row_id && r.operation_code.is_dml()
        });
        assert!(
            earlier,
            "ROLLBACK=1 row without the change it undoes: {:?}",
            u.sql_redo
        );
    }
    // Whole-transaction rollbacks end with a ROLLBACK row and leave no truth.
    let rolled: HashSet<&str> = rows
        .iter()
        .filter(|r| r.operation_code == OperationCode::Rollback)
        .map(|r| r.xid.as_str())
        .collect();
    assert!(!rolled.is_empty());
    assert!(s.truth().all(|e| !rolled.contains(e.source().xid.as_str())));
}

#[test]
fn log_switches_and_archives_form_a_consistent_inventory() {
    let mut s = sim("demo");
    s.advance_ms(3_600_000);
    let inv = Catalog::log_inventory(&mut s).unwrap();
    let mut arch: Vec<_> = inv.archived.iter().filter(|a| a.dest_id == 1).collect();
    arch.sort_by_key(|a| a.sequence);
    assert!(arch.len() >= 3, "only {} archives", arch.len());
    for w in arch.windows(2) {
        assert_eq!(w[0].sequence + 1, w[1].sequence, "sequence gap");
        assert_eq!(
            w[0].next_change, w[1].first_change,
            "SCN gap between archives"
        );
        assert!(w[0].is_available());
        assert_eq!(w[0].resetlogs_change, inv.resetlogs_change);
    }
    let cur = inv.current_log(1).unwrap();
    let last = arch.last().unwrap();
    assert_eq!(cur.sequence, last.sequence + 1);
    assert_eq!(cur.first_change, last.next_change);
    assert!(
        cur.next_change.unwrap_or(0) > 1 << 47,
        "CURRENT shows the maximum NEXT_CHANGE#"
    );
    assert_eq!(
        inv.online.iter().filter(|l| l.status == "CURRENT").count(),
        1
    );
    let t = &inv.threads[0];
    assert_eq!(t.current_sequence, cur.sequence);
    assert!(t.last_redo_scn >= cur.first_change);
    let names: HashSet<_> = arch.iter().filter_map(|a| a.name.clone()).collect();
    assert_eq!(names.len(), arch.len(), "archive names are unique");
}

#[test]
fn archive_gap_scenario_shows_deleted_archives_and_mining_them_fails_with_ora_01291() {
    let mut s = sim("archive-gap");
    s.advance_ms(600_000);
    let inv = Catalog::log_inventory(&mut s).unwrap();
    let deleted: Vec<_> = inv.archived.iter().filter(|a| a.deleted).collect();
    assert!(!deleted.is_empty());
    for d in &deleted {
        assert_eq!((d.name.as_deref(), d.status.as_str()), (None, "D"));
    }
    let gap_scn = deleted[0].first_change;
    let current = s.current_scn().unwrap().scn;
    assert_eq!(ora(mine(&mut s, gap_scn, current, options())), 1291);
    // After the gap, mining works again.
    let after = deleted.iter().map(|d| d.next_change).max().unwrap_or(0);
    let last_avail = inv
        .archived
        .iter()
        .filter(|a| a.is_available())
        .map(|a| a.first_change)
        .max()
        .unwrap_or(after);
    assert!(mine(&mut s, last_avail.max(after), current, options()).is_ok());
}

#[test]
fn a_log_deleted_after_the_session_started_fails_the_read_with_ora_01291() {
    let text = builtin_plus(
        "demo",
        "[[faults]]\nkind = \"archive_deleted\"\nat_s = 605\n",
    );
    let mut s = Sim::new(
        Scenario::parse(&text, "t").unwrap(),
        Clock::Virtual { step_ms: 1000 },
    );
    let inv = Catalog::log_inventory(&mut s).unwrap();
    let newest = inv
        .archived
        .iter()
        .filter(|a| a.is_available())
        .max_by_key(|a| a.sequence)
        .unwrap()
        .clone();
    let to = s.current_scn().unwrap().scn;
    let files = s.plan_logs(newest.first_change);
    s.start_session(&SessionRequest {
        log_files: files,
        start_scn: newest.first_change,
        end_scn: to,
        options: options(),
    })
    .unwrap();
    for _ in 0..10 {
        s.current_scn().unwrap();
    }
    let q = ContentsQuery {
        from_scn: newest.first_change,
        to_scn: to,
        ..ContentsQuery::default()
    };
    assert_eq!(ora(s.query_contents(&q)), 1291);
}

#[test]
fn logs_that_do_not_cover_the_range_raise_ora_01291_and_unknown_files_ora_01284() {
    let mut s = sim("demo");
    let cur = s.current_scn().unwrap().scn;
    let req = |files: Vec<String>, start: Scn| SessionRequest {
        log_files: files,
        start_scn: start,
        end_scn: cur,
        options: options(),
    };
    // Only the online logs: the start SCN lies in archived redo.
    let inv = Catalog::log_inventory(&mut s).unwrap();
    let online: Vec<String> = inv
        .online
        .iter()
        .filter(|l| l.status == "CURRENT")
        .flat_map(|l| l.member_files.clone())
        .collect();
    assert_eq!(ora(s.start_session(&req(online, first_scn(&s) + 5))), 1291);
    assert_eq!(
        ora(s.start_session(&req(vec!["/nowhere/1_1_1.dbf".into()], cur - 5))),
        1284
    );
}

#[test]
fn continuous_mine_on_19c_raises_ora_44609_and_is_accepted_on_11g() {
    let mut s = sim("demo");
    let cur = s.current_scn().unwrap().scn;
    let files = s.plan_logs(cur - 10);
    let mut opts = options();
    opts.continuous_mine = true;
    let req = SessionRequest {
        log_files: files,
        start_scn: cur - 10,
        end_scn: cur,
        options: opts,
    };
    assert_eq!(ora(s.start_session(&req)), 44609);
    let mut old = sim("oracle11g");
    let cur = old.current_scn().unwrap().scn;
    let files = old.plan_logs(cur - 10);
    let req = SessionRequest {
        log_files: files,
        start_scn: cur - 10,
        end_scn: cur,
        options: opts,
    };
    old.start_session(&req).unwrap();
}

#[test]
fn add_logfile_inside_a_pdb_raises_ora_65040_and_per_pdb_start_logmnr_works_from_19c() {
    let mut s = sim("wrong-container");
    let cur = s.current_scn().unwrap().scn;
    let files = s.plan_logs(cur - 10);
    let req = SessionRequest {
        log_files: files,
        start_scn: cur - 10,
        end_scn: cur,
        options: options(),
    };
    assert_eq!(ora(s.start_session(&req)), 65040, "ADD_LOGFILE in a PDB");
    // Per-PDB mining (19c): START_LOGMNR with the SCN range alone.
    let rows = mine(&mut s, cur - 200, cur, options()).unwrap();
    assert!(!rows.is_empty());
    assert!(rows
        .iter()
        .all(|r| r.src_con_name.as_deref() == Some("ORCLPDB1")));
    let mut s122 = variant(
        "wrong-container",
        &[("version = \"19c\"", "version = \"12.2\"")],
    );
    let cur = s122.current_scn().unwrap().scn;
    assert_eq!(
        ora(mine(&mut s122, cur - 200, cur, options())),
        65040,
        "no per-PDB mining before 19c"
    );
}

#[test]
fn missing_grants_raise_ora_01031_for_logminer_and_flashback() {
    let mut s = sim("missing-grants");
    let cur = s.current_scn().unwrap().scn;
    let files = s.plan_logs(cur - 10);
    let req = SessionRequest {
        log_files: files,
        start_scn: cur - 10,
        end_scn: cur,
        options: options(),
    };
    assert_eq!(ora(s.start_session(&req)), 1031);
    let t = TableName {
        owner: "APP".into(),
        table: "ORDERS".into(),
    };
    assert_eq!(ora(s.snapshot_chunk(&t, cur, None, 10)), 942);
    let session = s.session().unwrap();
    assert!(!session.has_privilege("LOGMINING"));
}

#[test]
fn dropped_connection_raises_ora_03113_then_03114_until_reconnect() {
    let text = BUILTINS
        .iter()
        .find(|b| b.name == "demo")
        .unwrap()
        .text
        .to_string()
        + "\n[[faults]]\nkind = \"connection_drop\"\nat_s = 603\n";
    let mut s = Sim::new(
        Scenario::parse(&text, "t").unwrap(),
        Clock::Virtual { step_ms: 1000 },
    );
    let mut first = None;
    for _ in 0..10 {
        if let Err(e) = s.current_scn() {
            first = Some(e);
            break;
        }
    }
    let e = first.expect("the connection drops");
    assert_eq!(e.ora_code(), Some(3113));
    assert!(e.is_transient());
    assert_eq!(ora(s.current_scn()), 3114);
    s.reconnect().unwrap();
    assert!(s.current_scn().is_ok());
}

#[test]
fn snapshot_as_of_an_scn_is_stable_while_the_workload_runs() {
    let mut s = sim("demo");
    let t = TableName {
        owner: "APP".into(),
        table: "ORDERS".into(),
    };
    let scn = s.current_scn().unwrap().scn;
    let read = |s: &mut Sim| {
        let mut all = Vec::new();
        let mut after: Option<Vec<String>> = None;
        loop {
            let c = s.snapshot_chunk(&t, scn, after.as_deref(), 97).unwrap();
            all.extend(c.rows);
            match c.last_key {
                Some(k) => after = Some(k),
                None => break,
            }
        }
        all
    };
    let before = read(&mut s);
    assert!(before.len() > 100);
    let keys: Vec<u64> = before
        .iter()
        .filter_map(|r| r[0].as_deref()?.parse().ok())
        .collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "ordered by key");
    s.advance_ms(300_000);
    assert_eq!(read(&mut s), before);
}

#[test]
fn snapshot_older_than_undo_retention_raises_ora_01555() {
    let mut s = sim("undo-too-small");
    let old = s.current_scn().unwrap().scn;
    let t = TableName {
        owner: "APP".into(),
        table: "ORDERS".into(),
    };
    assert!(s.snapshot_chunk(&t, old, None, 10).is_ok());
    s.advance_ms(300_000);
    assert_eq!(ora(s.snapshot_chunk(&t, old, None, 10)), 1555);
    let now = s.current_scn().unwrap().scn;
    assert!(s.snapshot_chunk(&t, now, None, 10).is_ok());
}

#[test]
fn a_read_below_partition_maintenance_raises_ora_01466_and_drops_show_unknown_objects_issue33() {
    let mut s = sim("interval-partition-churn");
    let t = TableName {
        owner: "APP".into(),
        table: "ORDER_HIS".into(),
    };
    let scn = s.current_scn().unwrap().scn;
    assert!(s.snapshot_chunk(&t, scn, None, 100).is_ok());
    let before = s.tables(&[]).unwrap()[0].partitioning.clone().unwrap();
    s.advance_ms(200_000); // the TRUNCATE at 420 s
                           // A new query as of an SCN before the DDL: "table definition has changed".
    assert_eq!(ora(s.snapshot_chunk(&t, scn, None, 100)), 1466);
    let after = s.tables(&[]).unwrap()[0].partitioning.clone().unwrap();
    let p0 = |p: &cdcctl::source::PartitioningFacts| {
        p.partitions
            .iter()
            .find(|x| x.name == "P_202501")
            .cloned()
            .unwrap()
    };
    assert_ne!(
        p0(&before).data_object_id,
        p0(&after).data_object_id,
        "TRUNCATE gives a new data object id"
    );
    assert_eq!(p0(&before).object_id, p0(&after).object_id);
    let ddl: Vec<LogMinerRow> = s
        .all_rows()
        .into_iter()
        .filter(|r| r.operation_code == OperationCode::Ddl)
        .collect();
    // The warm-up's MOVE comes first; the TRUNCATE at 420 s follows.
    assert!(
        ddl.iter().any(|r| r.sql_redo.as_deref()
            == Some("ALTER TABLE \"APP\".\"ORDER_HIS\" TRUNCATE PARTITION \"P_202501\";")),
        "{:?}",
        ddl.iter().map(|r| r.sql_redo.clone()).collect::<Vec<_>>()
    );
    assert!(
        after
            .partitions
            .iter()
            .any(|p| p.interval && p.name.starts_with("SYS_P")),
        "interval partitions were created"
    );
    // DROP PARTITION at 1500 s: redo written for that partition before the
    // drop no longer maps to a dictionary object.
    s.advance_ms(1_000_000);
    let to = s.current_scn().unwrap().scn;
    let from = first_scn(&s);
    let rows = mine(&mut s, from, to, options()).unwrap();
    assert!(rows.iter().any(|r| r
        .sql_redo
        .as_deref()
        .is_some_and(|q| q.contains("DROP PARTITION"))));
    let unknown: Vec<_> = rows
        .iter()
        .filter(|r| r.seg_owner.as_deref() == Some("UNKNOWN"))
        .collect();
    assert!(!unknown.is_empty(), "no UNKNOWN rows after DROP PARTITION");
    for r in unknown {
        let obj = r.data_obj.unwrap_or(0);
        assert_eq!(
            r.table_name.as_deref(),
            Some(format!("OBJ# {obj}").as_str())
        );
        let sql = r.sql_redo.as_deref().unwrap_or_default();
        assert!(
            sql.contains(&format!("\"UNKNOWN\".\"OBJ# {obj}\"")) && sql.contains("\"COL 1\""),
            "{sql}"
        );
    }
}

#[test]
fn committed_data_only_groups_transactions_in_commit_order() {
    let mut s = sim("demo");
    let cur = s.current_scn().unwrap().scn;
    let from = cur - 3000;
    let mut opts = options();
    opts.committed_data_only = true;
    let rows = mine(&mut s, from, cur, opts).unwrap();
    assert!(!rows.is_empty());
    let mut seen_done: HashSet<String> = HashSet::new();
    let mut last_commit = 0;
    let mut current: Option<String> = None;
    for r in &rows {
        if current.as_deref() != Some(r.xid.as_str()) {
            assert!(!seen_done.contains(&r.xid), "transaction {} split", r.xid);
            if let Some(c) = current.take() {
                seen_done.insert(c);
            }
            current = Some(r.xid.clone());
        }
        assert_ne!(r.operation_code, OperationCode::Rollback);
        if r.operation_code == OperationCode::Commit {
            assert!(r.scn >= last_commit);
            last_commit = r.scn;
        }
        assert!(r.commit_scn.is_some());
    }
}

#[test]
fn csf_pieces_stay_within_4000_bytes_and_rejoin_to_the_statement() {
    let mut s = sim("demo");
    let cur = s.current_scn().unwrap().scn;
    let from = first_scn(&s);
    let rows = mine(&mut s, from, cur, options()).unwrap();
    let whole: HashMap<String, String> = s
        .all_rows()
        .into_iter()
        .filter_map(|r| Some((r.rs_id.clone()?, r.sql_redo.clone()?)))
        .collect();
    let mut pieces = 0;
    let mut asm = CsfAssembler::new();
    for r in rows {
        let len = r.sql_redo.as_deref().map_or(0, str::len);
        assert!(len <= CSF_PIECE_BYTES);
        pieces += usize::from(r.csf);
        if let Some(joined) = asm.push(r).unwrap() {
            let key = joined.rs_id.clone().unwrap_or_default();
            assert_eq!(joined.sql_redo.as_ref(), whole.get(&key));
        }
    }
    asm.finish().unwrap();
    assert!(pieces > 0, "demo has statements above 4000 bytes");
}

fn round_trip(s: &mut Sim, opts: MiningOptions) -> usize {
    let cur = s.current_scn().unwrap().scn;
    let from = first_scn(s);
    let rows = mine(s, from, cur, opts).unwrap();
    let mut by_rs: HashMap<String, LogMinerRow> = HashMap::new();
    let mut asm = CsfAssembler::new();
    for r in rows {
        if let Some(j) = asm.push(r).unwrap() {
            if j.operation_code.is_dml() && !j.rollback {
                by_rs.insert(j.rs_id.clone().unwrap_or_default(), j);
            }
        }
    }
    let mut checked = 0;
    for e in s.truth_between(from, cur) {
        let CapturedEvent::Change(c) = e else {
            continue;
        };
        let key = c.source.rs_id.clone().unwrap_or_default();
        let row = by_rs
            .get(&key)
            .unwrap_or_else(|| panic!("no redo row for truth {key}"));
        assert_eq!(row.row_id, c.source.row_id);
        assert_eq!(row.scn, c.source.scn);
        let sql = row.sql_redo.as_deref().unwrap_or_default();
        let st = parse(sql).unwrap_or_else(|e| panic!("{e}: {sql}"));
        let kind = match c.op {
            Op::Create => DmlKind::Insert,
            Op::Update => DmlKind::Update,
            Op::Delete => DmlKind::Delete,
            Op::Read | Op::Truncate => unreachable!("the scenario reads and truncates nothing"),
        };
        assert_eq!(st.kind, kind);
        assert_eq!(
            (st.schema(), st.table()),
            (c.source.schema.as_str(), c.source.table.as_str())
        );
        assert_eq!(
            known(&st.before_image()),
            known(&c.before),
            "before image of {sql}"
        );
        assert_eq!(
            known(&st.after_image()),
            known(&c.after),
            "after image of {sql}"
        );
        checked += 1;
    }
    checked
}

#[test]
fn parser_reads_back_every_change_the_simulator_renders() {
    let mut s = sim("demo");
    let n = round_trip(&mut s, options());
    assert!(n > 5000, "only {n} changes checked");
    let mut s = sim("oracle11g");
    assert!(round_trip(&mut s, options()) > 500);
}

#[test]
fn parser_round_trip_holds_for_other_seeds_and_without_rowids() {
    for seed in [1, 2, 3] {
        let mut s = variant(
            "demo",
            &[
                ("seed = 20250301", &format!("seed = {seed}")),
                ("warmup_s = 600", "warmup_s = 120"),
            ],
        );
        let mut opts = options();
        opts.no_rowid_in_stmt = seed % 2 == 0;
        assert!(round_trip(&mut s, opts) > 500);
    }
}

#[test]
fn truth_orders_by_commit_and_numbers_changes_within_each_transaction() {
    let s = sim("demo");
    let mut last_commit = 0;
    let mut per_txn: HashMap<String, u32> = HashMap::new();
    for e in s.truth() {
        let CapturedEvent::Change(c) = e else {
            continue;
        };
        assert!(c.source.commit_scn >= last_commit);
        assert!(c.source.scn < c.source.commit_scn);
        last_commit = c.source.commit_scn;
        let next = per_txn.entry(c.source.xid.clone()).or_insert(0);
        assert_eq!(
            c.index, *next,
            "index is 0-based and dense after partial rollbacks"
        );
        *next += 1;
        assert!(c.table_order >= 1);
        assert_eq!(c.source.db, "ORCLPDB1");
        match c.op {
            Op::Create => assert!(c.before.is_none() && c.after.is_some()),
            Op::Update => assert!(c.before.is_some() && c.after.is_some()),
            Op::Delete => assert!(c.before.is_some() && c.after.is_none()),
            Op::Read | Op::Truncate => panic!("no reads or truncates in truth"),
        }
    }
}

#[test]
fn virtual_clock_advances_on_each_poll_and_generation_stays_bounded() {
    let mut s = variant("noarchivelog", &[("warmup_s = 300", "warmup_s = 0")]);
    let a = s.current_scn().unwrap();
    let b = s.current_scn().unwrap();
    assert!(b.scn > a.scn && b.time > a.time);
    s.set_truth_limit(Some(1000));
    s.advance_ms(3_600_000);
    // NOARCHIVELOG: only the online logs' redo is kept.
    let held = s.model().records.len();
    assert!(held < 40_000, "{held} redo records held");
    assert!(s.truth().count() <= 1000);
    let inv = Catalog::log_inventory(&mut s).unwrap();
    assert!(inv.archived.is_empty());
    let oldest = inv.online.iter().map(|l| l.first_change).min().unwrap_or(0);
    let cur = s.current_scn().unwrap().scn;
    assert_eq!(
        ora(mine(&mut s, oldest.saturating_sub(100), cur, options())),
        1291
    );
}

#[test]
fn long_transaction_stays_open_and_pins_its_start_scn() {
    let mut s = sim("long-transaction");
    let open = Catalog::open_transactions(&mut s).unwrap();
    assert!(!open.is_empty());
    let oldest = open[0].clone();
    s.advance_ms(3_600_000);
    let still = Catalog::open_transactions(&mut s).unwrap();
    assert_eq!(still[0].xid, oldest.xid);
    assert_eq!(still[0].start_scn, oldest.start_scn);
}

#[test]
fn preflight_facts_reflect_each_scenario() {
    let i = sim("noarchivelog").instance().unwrap();
    assert_eq!(i.log_mode, "NOARCHIVELOG");
    let i = sim("no-supplemental-logging").instance().unwrap();
    assert_eq!(i.supplemental_log_data_min, "NO");
    let i = sim("fra-nearly-full").instance().unwrap();
    let fra = i.recovery_area.unwrap();
    assert!(fra.space_used as f64 / fra.space_limit as f64 > 0.95);
    let mut old = sim("oracle11g");
    let i = old.instance().unwrap();
    assert!(!i.cdb && i.version.starts_with("11.2"));
    assert!(old.session().unwrap().has_role("DBA"));
    let t = old.tables(&[]).unwrap();
    assert_eq!(t[0].name.table, "sinfor_user");
    assert!(t[0].has_log_group("ALL COLUMN LOGGING"));
    let mut wc = sim("wrong-container");
    let sess = wc.session().unwrap();
    assert_eq!(sess.con_name, "ORCLPDB1");
    assert!(!sess.common_user);
    let mut demo = sim("demo");
    let t = demo
        .tables(&[cdcctl::source::TablePattern::parse("APP.ORDER_HIS").unwrap()])
        .unwrap();
    let p = t[0].partitioning.as_ref().unwrap();
    assert_eq!(p.interval.as_deref(), Some("NUMTOYMINTERVAL(1, 'MONTH')"));
    assert_eq!(p.partitions[0].name, "P_202501");
    assert!(p.partitions[0].high_value.contains("2025-02-01 00:00:00"));
    assert!(p
        .partitions
        .windows(2)
        .all(|w| w[0].position < w[1].position));
}

fn cdcctl(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cdcctl"))
        .args(args)
        .env_remove("CDCCTL_SOURCE")
        .output()
        .unwrap()
}

#[test]
fn sim_commands_list_scenarios_print_truth_and_contents() {
    let out = cdcctl(&["sim", "scenarios"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for b in BUILTINS {
        assert!(text.contains(b.name));
    }
    let out = cdcctl(&["--source", "sim:oracle11g", "sim", "truth", "--count", "5"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<_> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(lines.len(), 5);
    let v: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(v["source"]["db"], "ORCL");
    let out = cdcctl(&[
        "sim",
        "contents",
        "--scenario",
        "oracle11g",
        "--from-scn",
        "13000000",
        "--until-scn",
        "13000100",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("SCN,START_SCN,COMMIT_SCN,TIMESTAMP,XID"));
    assert!(text.contains("set transaction read write;"));
    let out = cdcctl(&["sim", "truth", "--scenario", "nope", "--count", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("demo"));
}

/// Runs the capture engine over a sim up to `until` and returns what it emitted.
fn capture(s: Sim, from: Scn, until: Scn) -> Vec<CapturedEvent> {
    capture_from(s, cdcctl::engine::capture::StartAt::Scn(from), until).0
}

/// Runs the capture engine from `start` up to `until`; returns what it
/// emitted, its warnings and the engine (with its source) for inspection.
fn capture_from(
    s: Sim,
    start: cdcctl::engine::capture::StartAt,
    until: Scn,
) -> (
    Vec<CapturedEvent>,
    Vec<cdcctl::engine::txn::TxnWarning>,
    cdcctl::engine::capture::Capture<Sim>,
) {
    capture_with(s, start, until, cdcctl::engine::txn::LobMode::Placeholder)
}

/// [`capture_from`] with a `--lob` mode.
fn capture_with(
    s: Sim,
    start: cdcctl::engine::capture::StartAt,
    until: Scn,
    lob: cdcctl::engine::txn::LobMode,
) -> (
    Vec<CapturedEvent>,
    Vec<cdcctl::engine::txn::TxnWarning>,
    cdcctl::engine::capture::Capture<Sim>,
) {
    use cdcctl::engine::capture::{Capture, CaptureConfig, Progress};
    use cdcctl::engine::emit::SinkError;
    use cdcctl::engine::txn::BufferConfig;
    let pdb = s.default_pdb();
    let db = s.db_name().to_string();
    let config = CaptureConfig {
        buffer: BufferConfig {
            db_name: db,
            lob,
            ..BufferConfig::default()
        },
        pdb,
        start,
        until_scn: Some(until),
        ..CaptureConfig::default()
    };
    let mut cap = Capture::new(s, config).unwrap();
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    for _ in 0..100_000 {
        let p = cap
            .poll(&mut |e: CapturedEvent| -> Result<(), SinkError> {
                out.push(e);
                Ok(())
            })
            .unwrap_or_else(|e| panic!("capture stopped: {e}"));
        warnings.extend(cap.take_warnings());
        if p == Progress::Finished {
            return (out, warnings, cap);
        }
    }
    panic!("capture did not reach SCN {until}");
}

/// LOB columns are absent from UPDATE/DELETE redo; the truth names them
/// as unavailable, a capture engine without the dictionary may omit them.
fn without_lob_placeholders(events: &[CapturedEvent]) -> Vec<String> {
    events
        .iter()
        .map(|e| match e {
            CapturedEvent::Change(c) => {
                let mut c = c.clone();
                c.before = known(&c.before);
                c.after = known(&c.after);
                c.to_json_line()
            }
            other => other.to_json_line(),
        })
        .collect()
}

fn changes(events: impl Iterator<Item = CapturedEvent>) -> Vec<CapturedEvent> {
    events
        .filter(|e| matches!(e, CapturedEvent::Change(_)))
        .collect()
}

#[test]
fn capture_engine_reproduces_the_ground_truth() {
    let truth_sim = sim("demo");
    let from = first_scn(&truth_sim);
    let until = from + 40_000;
    let mut truth_sim = truth_sim;
    truth_sim.advance_to_scn(until + 1);
    let truth = changes(truth_sim.truth_between(from, until).cloned());
    assert!(truth.len() > 5000);
    let got = changes(capture(sim("demo"), from, until).into_iter());
    assert_eq!(
        without_lob_placeholders(&got),
        without_lob_placeholders(&truth)
    );
}

#[test]
fn issue9_capture_engine_with_lob_capture_reproduces_the_lobs_truth() {
    let mut truth_sim = sim("lobs");
    truth_sim.set_lob_truth(true);
    let from = first_scn(&truth_sim);
    let until = from + 6_000;
    truth_sim.advance_to_scn(until + 1);
    let truth = changes(truth_sim.truth_between(from, until).cloned());
    assert!(truth.len() > 300, "{}", truth.len());
    let start = cdcctl::engine::capture::StartAt::Scn(from);
    let lob = cdcctl::engine::txn::LobMode::Capture;
    let got = changes(capture_with(sim("lobs"), start, until, lob).0.into_iter());
    // Images compared as sets of columns: a reassembled column comes after
    // the statement's.
    let sorted = |events: &[CapturedEvent]| -> Vec<String> {
        let mut events = events.to_vec();
        for e in &mut events {
            if let CapturedEvent::Change(c) = e {
                for image in [&mut c.before, &mut c.after].into_iter().flatten() {
                    image.sort_by_name();
                }
            }
        }
        without_lob_placeholders(&events)
    };
    assert_eq!(sorted(&got), sorted(&truth));
}

#[test]
fn capture_survives_a_dropped_connection_without_loss_or_duplicates() {
    let text = BUILTINS.iter().find(|b| b.name == "oracle11g").unwrap().text.to_string()
        + "\n[[faults]]\nkind = \"connection_drop\"\nat_s = 320\n\n[[faults]]\nkind = \"connection_drop\"\nat_s = 400\n";
    let make = || {
        Sim::new(
            Scenario::parse(&text, "t").unwrap(),
            Clock::Virtual { step_ms: 1000 },
        )
    };
    let mut truth_sim = make();
    let from = first_scn(&truth_sim);
    let until = truth_sim.model().scn + 3_000;
    truth_sim.advance_to_scn(until + 1);
    let truth = changes(truth_sim.truth_between(from, until).cloned());
    let got = changes(capture(make(), from, until).into_iter());
    assert_same_changes(&got, &truth);
}

/// Same changes in the same order, LOB placeholders aside; a mismatch
/// names the first difference.
fn assert_same_changes(got: &[CapturedEvent], truth: &[CapturedEvent]) {
    let (got, truth) = (
        without_lob_placeholders(got),
        without_lob_placeholders(truth),
    );
    let first_diff = got.iter().zip(&truth).position(|(a, b)| a != b);
    assert_eq!(
        (got.len(), first_diff),
        (truth.len(), None),
        "first difference: {:?}",
        first_diff.map(|i| (&got[i], &truth[i]))
    );
}

#[test]
fn redo_does_not_depend_on_how_often_the_clock_is_polled() {
    let make = |step_ms| {
        let b = BUILTINS.iter().find(|b| b.name == "oracle11g").unwrap();
        Sim::new(
            Scenario::parse(b.text, "t").unwrap(),
            Clock::Virtual { step_ms },
        )
    };
    let mut coarse = make(5000);
    let mut fine = make(250);
    for _ in 0..24 {
        coarse.current_scn().unwrap();
    }
    for _ in 0..480 {
        fine.current_scn().unwrap();
    }
    let mut direct = make(1000);
    let target = coarse.model().scn;
    direct.advance_to_scn(target);
    let n = coarse
        .all_rows()
        .len()
        .min(fine.all_rows().len())
        .min(direct.all_rows().len());
    assert!(n > 1000);
    assert_eq!(coarse.all_rows()[..n], fine.all_rows()[..n]);
    assert_eq!(coarse.all_rows()[..n], direct.all_rows()[..n]);
}

#[test]
fn two_redo_threads_switch_and_archive_independently_and_capture_still_matches_truth() {
    let make = || {
        variant(
            "oracle11g",
            &[
                ("cdb = false", "cdb = false\nthreads = 2"),
                ("rate = 10.0", "rate = 40.0"),
                ("group_bytes = 2097152", "group_bytes = 524288"),
            ],
        )
    };
    let mut s = make();
    s.advance_ms(600_000);
    let inv = Catalog::log_inventory(&mut s).unwrap();
    assert_eq!(inv.threads.len(), 2);
    for t in [1u16, 2] {
        let mut seqs: Vec<u64> = inv
            .archived
            .iter()
            .filter(|a| a.thread == t)
            .map(|a| a.sequence)
            .collect();
        seqs.sort_unstable();
        assert!(seqs.len() >= 2, "thread {t} archived {seqs:?}");
        assert!(seqs.windows(2).all(|w| w[0] + 1 == w[1]));
        assert!(inv.current_log(t).is_some());
    }
    let rows = s.all_rows();
    assert!(rows.iter().any(|r| r.thread == 2) && rows.iter().any(|r| r.thread == 1));
    let mut truth_sim = make();
    let from = first_scn(&truth_sim);
    let until = truth_sim.model().scn + 20_000;
    truth_sim.advance_to_scn(until + 1);
    let truth = changes(truth_sim.truth_between(from, until).cloned());
    let got = changes(capture(make(), from, until).into_iter());
    assert_eq!(got.len(), truth.len());
    assert_eq!(
        without_lob_placeholders(&got),
        without_lob_placeholders(&truth)
    );
}

#[test]
fn real_clock_generates_redo_as_wall_time_passes() {
    let b = BUILTINS.iter().find(|b| b.name == "oracle11g").unwrap();
    let text = b
        .text
        .replace("rate = 10.0", "rate = 2000.0")
        .replace("warmup_s = 300", "warmup_s = 0");
    let mut s = Sim::new(Scenario::parse(&text, "t").unwrap(), Clock::Real);
    let a = s.current_scn().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let b = s.current_scn().unwrap();
    assert!(b.scn > a.scn, "SCN did not move with the wall clock");
    // Database time never runs ahead of the wall clock.
    assert!((b.time - a.time).num_seconds() <= 2);
}

#[test]
fn redo_held_in_memory_is_bounded_and_what_is_dropped_shows_as_deleted() {
    let mut s = variant(
        "oracle11g",
        &[
            (
                "group_bytes = 2097152",
                "group_bytes = 262144\nmemory_records = 10000",
            ),
            ("rate = 10.0", "rate = 200.0"),
        ],
    );
    s.advance_ms(1_800_000);
    let cur = s.current_scn().unwrap().scn;
    let held = s.model().records.len();
    assert!(held <= 10_000 + 5_000, "{held} records held");
    let inv = Catalog::log_inventory(&mut s).unwrap();
    assert!(inv.archived.iter().any(|a| a.deleted));
    let oldest_kept = s.model().records.front().map(|r| r.scn).unwrap_or(0);
    let early = first_scn(&s) + 10;
    assert!(oldest_kept > early);
    assert_eq!(ora(mine(&mut s, early, cur, options())), 1291);
    mine(&mut s, oldest_kept, cur, options()).unwrap();
}

/// oracle11g with 256 KiB online logs (three groups, about 1,100 records
/// each) and room for 10,000 records: the memory cap deletes an archive
/// every few logs.
fn small_memory_cap() -> Sim {
    variant(
        "oracle11g",
        &[
            (
                "group_bytes = 2097152",
                "group_bytes = 262144\nmemory_records = 10000",
            ),
            ("rate = 10.0", "rate = 200.0"),
        ],
    )
}

#[test]
fn memory_cap_keeps_held_records_under_it_and_shows_every_dropped_log_as_deleted() {
    let mut s = small_memory_cap();
    for _ in 0..60 {
        s.advance_ms(5_000);
        // The cap is applied at each log switch.
        s.switch_logs();
        let held = s.model().records.len();
        assert!(held <= 10_000, "{held} records held after a switch");
        // Nothing held is unreadable, and nothing older than what is held
        // is still offered as readable: the cap is a deletion, never a gap.
        let oldest = s.model().records.front().map(|r| r.seq).unwrap_or(0);
        let inv = Catalog::log_inventory(&mut s).unwrap();
        for a in &inv.archived {
            if a.sequence < oldest {
                assert!(a.deleted, "sequence {} dropped but listed", a.sequence);
            } else {
                assert!(!a.deleted, "sequence {} held but deleted", a.sequence);
            }
        }
    }
    let inv = Catalog::log_inventory(&mut s).unwrap();
    assert!(inv.archived.iter().filter(|a| a.deleted).count() > 20);
}

#[test]
fn a_reader_that_keeps_up_never_meets_ora_01291_across_many_memory_cap_deletions() {
    let make = small_memory_cap;
    let mut truth_sim = make();
    // Where the database is when the reader starts: it is behind by nothing.
    let from = truth_sim.model().scn;
    // About 90 logs of redo: the cap deletes some 80 archives meanwhile.
    let until = from + 200_000;
    truth_sim.advance_to_scn(until + 1);
    // By commit: the reader also delivers the transactions under way
    // when it starts, read from their start.
    let committed = |e: &CapturedEvent| (from + 1..=until).contains(&e.source().commit_scn);
    let truth = changes(truth_sim.truth().filter(|e| committed(e)).cloned());
    assert!(truth.len() > 50_000);
    // Each poll moves the virtual clock by a second (about 220 records):
    // the reader is never more than a poll behind. A stop on ORA-01291
    // fails the capture.
    let (got, _, mut cap) =
        capture_from(make(), cdcctl::engine::capture::StartAt::Scn(from), until);
    let inv = Catalog::log_inventory(cap.source_mut()).unwrap();
    assert!(inv.archived.iter().filter(|a| a.deleted).count() > 50);
    assert_same_changes(&changes(got.into_iter().filter(committed)), &truth);
}

#[test]
fn scenario_keys_the_simulator_cannot_honour_are_rejected() {
    let base = BUILTINS
        .iter()
        .find(|b| b.name == "oracle11g")
        .unwrap()
        .text;
    let bad = base.replace(
        "{ name = \"ID\", type = \"NUMBER(10)\"",
        "{ name = \"ID\", type = \"VARCHAR2(10)\"",
    );
    let e = Scenario::parse(&bad, "t").unwrap_err().to_string();
    assert!(e.contains("must be a NUMBER"), "{e}");
    let bad = base
        .replace("threads = ", "x")
        .replace("cdb = false", "cdb = false\nthreads = 99");
    let e = Scenario::parse(&bad, "t").unwrap_err().to_string();
    assert!(e.contains("threads"), "{e}");
}

#[test]
fn capture_matches_truth_with_ddl_through_partition_maintenance() {
    let mut truth_sim = sim("interval-partition-churn");
    let from = first_scn(&truth_sim);
    let until = from + 65_000;
    truth_sim.advance_to_scn(until + 1);
    let truth: Vec<CapturedEvent> = truth_sim.truth_between(from, until).cloned().collect();
    let ddl = truth
        .iter()
        .filter(|e| matches!(e, CapturedEvent::Ddl(_)))
        .count();
    assert!(ddl >= 2, "TRUNCATE and MOVE fall in the range");
    let got = capture(sim("interval-partition-churn"), from, until);
    assert_eq!(
        without_lob_placeholders(&got),
        without_lob_placeholders(&truth)
    );
}

/// `sim contents | redo replay` and `sim truth --omit-unlogged-lobs` over
/// the same range, each with its extra arguments: (replayed, truth).
pub(crate) fn replayed_and_truth(
    scenario: &str,
    range: &[&str],
    replay_args: &[&str],
    truth_args: &[&str],
) -> (String, String) {
    use std::io::Write;
    use std::process::Stdio;
    let contents = cdcctl(&[&["sim", "contents", "--scenario", scenario][..], range].concat());
    assert!(
        contents.status.success(),
        "{}",
        String::from_utf8_lossy(&contents.stderr)
    );
    let mut replay = Command::new(env!("CARGO_BIN_EXE_cdcctl"))
        .args([&["redo", "replay", "--csv", "-"][..], replay_args].concat())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = replay.stdin.take().unwrap();
    let csv = contents.stdout.clone();
    let writer = std::thread::spawn(move || stdin.write_all(&csv));
    let replayed = replay.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        replayed.status.success(),
        "{}",
        String::from_utf8_lossy(&replayed.stderr)
    );
    let truth = cdcctl(
        &[
            &[
                "sim",
                "truth",
                "--scenario",
                scenario,
                "--omit-unlogged-lobs",
            ][..],
            truth_args,
            range,
        ]
        .concat(),
    );
    assert!(truth.status.success());
    (
        String::from_utf8_lossy(&replayed.stdout).into_owned(),
        String::from_utf8_lossy(&truth.stdout).into_owned(),
    )
}

#[test]
fn sim_contents_replayed_reproduces_sim_truth_byte_for_byte() {
    let range = ["--from-scn", "13000000", "--until-scn", "13020000"];
    let (a, b) = replayed_and_truth("demo", &range, &[], &[]);
    assert!(b.lines().count() > 3000);
    assert!(b.contains("\"table\":\"DOCS\""));
    assert_eq!(a, b);
}

#[test]
fn issue9_lobs_scenario_replayed_equals_its_truth_with_and_without_lob_capture() {
    // CLOB/BLOB after EMPTY_LOB() and rewritten by dbms_lob, XMLType in XML
    // DOC rows, VARCHAR2(20000) values in 32K rows. Without a dictionary a
    // reassembled column comes after the statement's columns, so envelopes
    // are compared as JSON values, not bytes, and the unavailable marker
    // (of columns no redo carries) is left out on both sides.
    let range = ["--from-scn", "13000000", "--until-scn", "13006000"];
    let parse = |text: &str| -> Vec<serde_json::Value> {
        text.lines()
            .map(|l| {
                crate::common::without_unavailable(
                    serde_json::from_str(l).expect("one envelope per line"),
                )
            })
            .collect()
    };
    for (replay_args, truth_args) in [
        (&["--lob", "capture"][..], &["--lob", "capture"][..]),
        (&[][..], &[][..]),
    ] {
        let (a, b) = replayed_and_truth("lobs", &range, replay_args, truth_args);
        let (got, want) = (parse(&a), parse(&b));
        assert!(want.len() > 300, "{}", want.len());
        let first_diff = got.iter().zip(&want).position(|(g, w)| g != w);
        assert_eq!(
            (got.len(), first_diff),
            (want.len(), None),
            "{replay_args:?}: first difference {:?}",
            first_diff.map(|i| (&got[i], &want[i]))
        );
    }
    // The forms really are there: XML pieces, 32K pieces, a LOB rewritten
    // alone (an UPDATE whose after image is the key and the LOB).
    let (a, _) = replayed_and_truth("lobs", &range, &["--lob", "capture"], &["--lob", "capture"]);
    let events = parse(&a);
    let has = |pred: &dyn Fn(&serde_json::Value) -> bool| events.iter().any(pred);
    assert!(has(&|e| e["after"]["PAYLOAD"]
        .as_str()
        .is_some_and(|x| x.starts_with("<doc"))));
    assert!(has(&|e| e["after"]["NOTES"]
        .as_str()
        .is_some_and(|x| x.len() > 4000)));
    assert!(has(&|e| e["op"] == "u"
        && e["after"]
            .as_object()
            .is_some_and(|m| m.len() == 2 && m.contains_key("DOC_ID"))));
}

#[test]
fn issue9_redo_forms_replayed_with_its_dictionary_equals_its_truth_in_several_character_sets() {
    // Table aliases, TIMESTAMP(0) with an empty fraction, native JSON and
    // character data as HEXTORAW, replayed with the dictionary `sim
    // dictionary` prints, under `--lob capture` and the default. The
    // built-in scenario is ZHS16GBK/AL16UTF16; variants take other sets.
    let dir = tempfile::tempdir().unwrap();
    let builtin = BUILTINS.iter().find(|b| b.name == "redo-forms").unwrap();
    let mut scenarios = vec!["redo-forms".to_string()];
    for (charset, nchar) in [("WE8MSWIN1252", "UTF8"), ("AL32UTF8", "AL16UTF16")] {
        let text = builtin
            .text
            .replacen(
                "characterset = \"ZHS16GBK\"",
                &format!("characterset = \"{charset}\""),
                1,
            )
            .replacen(
                "nchar_characterset = \"AL16UTF16\"",
                &format!("nchar_characterset = \"{nchar}\""),
                1,
            );
        assert!(text.contains(charset) && text.contains(&format!("\"{nchar}\"")));
        let path = dir.path().join(format!("{charset}.toml"));
        std::fs::write(&path, text).unwrap();
        scenarios.push(path.display().to_string());
    }
    let range = ["--from-scn", "13000000", "--until-scn", "13004000"];
    let parse = |text: &str| -> Vec<serde_json::Value> {
        text.lines()
            .map(|l| {
                crate::common::without_unavailable(
                    serde_json::from_str(l).expect("one envelope per line"),
                )
            })
            .collect()
    };
    for scenario in &scenarios {
        let dictionary = cdcctl(&["sim", "dictionary", "--scenario", scenario]);
        assert!(dictionary.status.success());
        let dict_path = dir.path().join("dictionary.json");
        std::fs::write(&dict_path, &dictionary.stdout).unwrap();
        let dict = dict_path.to_str().unwrap();
        for lob in ["capture", "placeholder"] {
            let (a, b) = replayed_and_truth(
                scenario,
                &range,
                &["--dictionary", dict, "--lob", lob],
                &["--lob", lob],
            );
            let (got, want) = (parse(&a), parse(&b));
            assert!(want.len() > 300, "{scenario}: {}", want.len());
            let first_diff = got.iter().zip(&want).position(|(g, w)| g != w);
            assert_eq!(
                (got.len(), first_diff),
                (want.len(), None),
                "{scenario} --lob {lob}: first difference {:?}",
                first_diff.map(|i| (&got[i], &want[i]))
            );
        }
    }
    // The forms really are in the rows, and character data decoded from
    // HEXTORAW holds its control characters.
    let contents = cdcctl(&[&["sim", "contents", "--scenario", "redo-forms"][..], &range].concat());
    let csv = String::from_utf8_lossy(&contents.stdout);
    for form in [
        r#"update ""APP"".""EVENTS"" a set a.""#,
        r#"delete from ""APP"".""EVENTS"" a where a.""#,
        r#"update ""APP"".""EVENTS"" set ""#,
        "TO_TIMESTAMP('2025-",
        ":00.')",
        "/* JSON */ EMPTY_BLOB()",
        "/* JSON */ HEXTORAW('ff4a5a01",
        "HEXTORAW('07",
        "HEXTORAW('00",
    ] {
        assert!(csv.contains(form), "no `{form}` in the redo-forms rows");
    }
    let (a, _) = replayed_and_truth(
        "redo-forms",
        &range,
        &["--lob", "capture"],
        &["--lob", "capture"],
    );
    let control = parse(&a).iter().any(|e| {
        ["NAME", "CODE", "LABEL"].iter().any(|c| {
            e["after"][c].as_str().is_some_and(|t| {
                t.chars()
                    .any(|ch| ch.is_control() && ch != '\n' && ch != '\t')
            })
        })
    });
    assert!(
        !control,
        "without --dictionary no HEXTORAW value may come out as text"
    );
    let events = {
        let dictionary = cdcctl(&["sim", "dictionary", "--scenario", "redo-forms"]);
        let dict_path = dir.path().join("redo-forms.json");
        std::fs::write(&dict_path, &dictionary.stdout).unwrap();
        let (a, _) = replayed_and_truth(
            "redo-forms",
            &range,
            &["--dictionary", dict_path.to_str().unwrap()],
            &[],
        );
        parse(&a)
    };
    assert!(events.iter().any(|e| {
        e["after"]["NAME"].as_str().is_some_and(|t| {
            t.chars()
                .any(|ch| ch.is_control() && ch != '\n' && ch != '\t')
        })
    }));
    // TIMESTAMP(0) printed `…SS.` reads as `.0`.
    assert!(events.iter().all(|e| e["after"]["CREATED_AT"]
        .as_str()
        .is_none_or(|t| t.len() == 21 && t.ends_with(".0"))));
}

mod rendered_rows_parse_back {
    //! Random values of every column type, rendered by the simulator as
    //! LogMiner would and read back by the SQL_REDO parser, then decoded by
    //! the engine with the dictionary's character sets: in several database
    //! and national character sets, with and without a table alias, under
    //! `…SS.FF9` and `…SS.FF` session formats.
    use std::sync::Arc;

    use chrono::{NaiveDate, NaiveDateTime};
    use proptest::prelude::*;

    use cdcctl::engine::charset::CharsetDictionary;
    use cdcctl::engine::event::{Field, Image};
    use cdcctl::engine::redo::parse;
    use cdcctl::source::sim::logminer::Session;
    use cdcctl::source::sim::model::{Body, DmlOp, Rec, TxnTag};
    use cdcctl::source::sim::value::{number_text, Value};
    use cdcctl::source::sim::{Model, Scenario};

    const CHARSETS: [&str; 6] = [
        "AL32UTF8",
        "ZHS16GBK",
        "WE8MSWIN1252",
        "WE8ISO8859P1",
        "UTF8",
        "AL16UTF16",
    ];
    const NCHAR_CHARSETS: [&str; 2] = ["AL16UTF16", "UTF8"];
    const FORMATS: [&str; 2] = ["YYYY-MM-DD HH24:MI:SS.FF9", "YYYY-MM-DD HH24:MI:SS.FF"];

    /// The table under the settings a case draws.
    fn table(charset: &str, nchar: &str, alias_pct: u32, format: &str) -> String {
        format!(
            "[instance]\nversion = \"21c\"\ncdb = true\npdbs = [\"P1\"]\n\
             supplemental_logging = \"all\"\ncharacterset = \"{charset}\"\n\
             nchar_characterset = \"{nchar}\"\n[logminer]\ntable_alias_pct = {alias_pct}\n\
             nls_timestamp_format = \"{format}\"\n{TABLE}"
        )
    }

    const TABLE: &str = r#"
[connection]
user = "C##U"
[[tables]]
owner = "APP"
name = "ALL_TYPES"
rows = 0
primary_key = ["ID"]
columns = [
  { name = "ID", type = "NUMBER(18)", nullable = false },
  { name = "N", type = "NUMBER" },
  { name = "S", type = "VARCHAR2(4000)" },
  { name = "W", type = "NVARCHAR2(2000)" },
  { name = "C", type = "CHAR(8)" },
  { name = "D", type = "DATE" },
  { name = "T", type = "TIMESTAMP(9)" },
  { name = "Z", type = "TIMESTAMP(6) WITH TIME ZONE" },
  { name = "R", type = "RAW(64)" },
  { name = "YM", type = "INTERVAL YEAR TO MONTH" },
  { name = "DS", type = "INTERVAL DAY TO SECOND" },
  { name = "T0", type = "TIMESTAMP(0)" },
  { name = "J", type = "JSON" },
]
"#;

    /// Text, sometimes led by a control character LogMiner cannot show.
    fn text(pattern: &'static str) -> BoxedStrategy<String> {
        let control = prop::sample::select(vec!['\u{1}', '\u{7}', '\u{1b}', '\u{7f}', '\u{85}']);
        prop_oneof![
            3 => pattern.prop_map(String::from),
            1 => (control, pattern).prop_map(|(c, t)| format!("{c}{t}")),
        ]
        .boxed()
    }

    fn time() -> impl Strategy<Value = NaiveDateTime> {
        (
            1900i32..2100,
            1u32..=12,
            1u32..=28,
            0u32..24,
            0u32..60,
            0u32..60,
            0u32..1_000_000_000,
        )
            .prop_map(|(y, mo, d, h, mi, s, ns)| {
                NaiveDate::from_ymd_opt(y, mo, d)
                    .and_then(|x| x.and_hms_nano_opt(h, mi, s, ns))
                    .unwrap_or_default()
            })
    }

    fn nullable(v: impl Strategy<Value = Value> + 'static) -> BoxedStrategy<Value> {
        prop_oneof![1 => Just(Value::Null), 6 => v].boxed()
    }

    fn row() -> impl Strategy<Value = Vec<Value>> {
        (
            1i64..1_000_000_000,
            nullable(
                (any::<i64>(), 0u32..6)
                    .prop_map(|(m, s)| Value::Number(number_text(i128::from(m), s))),
            ),
            nullable(text("(?s).{1,60}").prop_map(Value::Str)),
            nullable(text("(?s).{1,40}").prop_map(Value::NStr)),
            nullable("[ -~]{8}".prop_map(Value::Str)),
            nullable(time().prop_map(|t| Value::Date(t.with_nanosecond_zero()))),
            nullable(time().prop_map(Value::Timestamp)),
            nullable((time(), -720i32..=840).prop_map(|(t, o)| Value::TimestampTz(t.micro(), o))),
            nullable(proptest::collection::vec(any::<u8>(), 1..64).prop_map(Value::Raw)),
            nullable(
                (0u32..100, 0u32..12, any::<bool>()).prop_map(|(y, m, neg)| {
                    Value::IntervalYm(format!("{}{y:02}-{m:02}", if neg { '-' } else { '+' }))
                }),
            ),
            nullable(
                (0u32..100, 0u32..24, 0u32..60, 0u32..60, 0u32..1_000_000).prop_map(
                    |(d, h, m, s, f)| {
                        Value::IntervalDs(format!("+{d:02} {h:02}:{m:02}:{s:02}.{f:06}"))
                    },
                ),
            ),
            (
                nullable(time().prop_map(|t| Value::Timestamp(t.with_nanosecond_zero()))),
                nullable(
                    (0u32..100_000, "[a-z]{0,8}")
                        .prop_map(|(n, s)| Value::Json(format!(r#"{{"n":{n},"s":"{s}"}}"#))),
                ),
            ),
        )
            .prop_map(|(id, n, s, w, c, d, t, z, r, ym, ds, (t0, j))| {
                vec![
                    Value::Number(id.to_string()),
                    n,
                    s,
                    w,
                    c,
                    d,
                    t,
                    z,
                    r,
                    ym,
                    ds,
                    t0,
                    j,
                ]
            })
    }

    trait Trunc {
        fn with_nanosecond_zero(self) -> Self;
        fn micro(self) -> Self;
    }

    impl Trunc for NaiveDateTime {
        fn with_nanosecond_zero(self) -> Self {
            use chrono::Timelike;
            self.with_nanosecond(0).unwrap_or(self)
        }
        fn micro(self) -> Self {
            use chrono::Timelike;
            self.with_nanosecond(self.nanosecond() / 1000 * 1000)
                .unwrap_or(self)
        }
    }

    /// The image of `values` over the columns `pick` keeps, as the engine
    /// gives it under the model's session format.
    fn image_of(m: &Model, values: &[Value], pick: impl Fn(usize) -> bool) -> Image {
        m.tables[0]
            .columns
            .iter()
            .zip(values)
            .enumerate()
            .filter(|(i, _)| pick(*i))
            .map(|(_, (c, v))| (c.name.clone(), v.field_in(&c.ty, &m.nls)))
            .collect()
    }

    /// Every column: an INSERT names them all.
    fn image(m: &Model, values: &[Value]) -> Image {
        image_of(m, values, |_| true)
    }

    /// The columns a WHERE clause holds: all but the JSON one.
    fn where_image(m: &Model, values: &[Value]) -> Image {
        image_of(m, values, |i| !m.tables[0].columns[i].ty.is_lob_like())
    }

    /// The values as the table's columns store them in its character sets.
    fn stored(m: &Model, values: Vec<Value>) -> Vec<Value> {
        values
            .into_iter()
            .zip(&m.tables[0].columns)
            .map(|(v, c)| v.stored_in(&c.ty, &m.nls.charsets))
            .collect()
    }

    /// The character-set dictionary `run` builds from the catalog.
    fn dictionary(m: &Model) -> CharsetDictionary {
        let mut d = CharsetDictionary::new(m.nls.charsets.database, m.nls.charsets.national);
        let t = &m.tables[0];
        for c in &t.columns {
            d.add_column(&t.name.owner, &t.name.table, &c.name, &c.ty.data_type());
        }
        d
    }

    fn rec(
        m: &Model,
        op: DmlOp,
        before: Option<Vec<Value>>,
        after: Option<Vec<Value>>,
        changed: Vec<usize>,
    ) -> Rec {
        Rec {
            scn: 1,
            time: m.now(),
            thread: 1,
            seq: 1,
            block: 2,
            txn: TxnTag::new(
                Arc::from("0100020003000000"),
                Arc::from("U"),
                Some(Arc::from("P1")),
            ),
            body: Body::Dml {
                table: 0,
                obj: m.tables[0].obj_id,
                objd: m.tables[0].data_obj_id,
                op,
                rollback: false,
                rowid: Arc::from("AAASEQAAMAAAACKAAK"),
                before: before.map(Arc::new),
                after: after.map(Arc::new),
                changed,
            },
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn parser_images_equal_the_values_the_simulator_rendered(
            old in row(),
            new in row(),
            mask in proptest::collection::vec(any::<bool>(), 12),
            charset in prop::sample::select(&CHARSETS[..]),
            nchar in prop::sample::select(&NCHAR_CHARSETS[..]),
            alias_pct in prop::sample::select(vec![0u32, 100]),
            format in prop::sample::select(&FORMATS[..]),
        ) {
            let text = table(charset, nchar, alias_pct, format);
            let m = Model::new(Scenario::parse(&text, "t").unwrap());
            let (old, new) = (stored(&m, old), stored(&m, new));
            let dict = dictionary(&m);
            let s = Session::unrestricted(&m);
            let read = |sql: &str| -> Result<_, TestCaseError> {
                let mut st = parse(sql).map_err(|e| TestCaseError::fail(format!("{e}: {sql}")))?;
                st.decode_character_hex(Some(&dict));
                Ok((st.before_image(), st.after_image(), st.row_id().map(str::to_string)))
            };
            let ins = s.render(&m, &rec(&m, DmlOp::Insert, None, Some(old.clone()), vec![]));
            let sql = ins.sql_redo.unwrap_or_default();
            let (_, after_ins, _) = read(&sql)?;
            prop_assert_eq!(after_ins, Some(image(&m, &old)), "{}", sql);

            let mut after = old.clone();
            let mut changed = Vec::new();
            for (i, on) in mask.iter().enumerate() {
                if *on {
                    after[i + 1] = new[i + 1].clone();
                    changed.push(i + 1);
                }
            }
            if changed.is_empty() {
                changed.push(2);
                after[2] = new[2].clone();
            }
            let json = m.tables[0].columns.len() - 1;
            let json_changed = changed.contains(&json);
            let upd = s.render(&m, &rec(&m, DmlOp::Update, Some(old.clone()), Some(after.clone()), changed));
            let sql = upd.sql_redo.unwrap_or_default();
            prop_assert_eq!(alias_pct == 100, sql.contains("\"ALL_TYPES\" a set a."), "{}", sql);
            let (before_upd, after_upd, row_id) = read(&sql)?;
            prop_assert_eq!(before_upd, Some(where_image(&m, &old)), "{}", sql);
            // SET names the JSON column after the WHERE ones: the image
            // appends it, its binary OSON decoded, or NULL.
            let mut want = where_image(&m, &after);
            if json_changed {
                let f = match &after[json] {
                    Value::Json(doc) => Field::text(cdcctl::source::sim::value::oson::stored_text(doc)),
                    _ => Field::Null,
                };
                want.push("J", &f);
            }
            prop_assert_eq!(after_upd, Some(want), "{}", sql);
            prop_assert_eq!(row_id.as_deref(), Some("AAASEQAAMAAAACKAAK"));

            let del = s.render(&m, &rec(&m, DmlOp::Delete, Some(after.clone()), None, vec![]));
            let sql = del.sql_redo.unwrap_or_default();
            let (before_del, _, _) = read(&sql)?;
            prop_assert_eq!(before_del, Some(where_image(&m, &after)), "{}", sql);
        }
    }
}

#[test]
fn pdb_filter_and_per_pdb_mining_show_only_that_container() {
    let two = [
        (
            "pdbs = [\"ORCLPDB1\"]",
            "pdbs = [\"ORCLPDB1\", \"SALESPDB\"]",
        ),
        (
            "name = \"DOCS\"\npdb = \"ORCLPDB1\"",
            "name = \"DOCS\"\npdb = \"SALESPDB\"",
        ),
        ("warmup_s = 600", "warmup_s = 120"),
    ];
    let mut s = variant("demo", &two);
    let cur = s.current_scn().unwrap().scn;
    let from = first_scn(&s);
    let files = s.plan_logs(from);
    s.start_session(&SessionRequest {
        log_files: files,
        start_scn: from,
        end_scn: cur,
        options: options(),
    })
    .unwrap();
    let mut query = |pdb: Option<&str>| {
        s.query_contents(&ContentsQuery {
            from_scn: from,
            to_scn: cur,
            pdb: pdb.map(String::from),
            ..ContentsQuery::default()
        })
        .unwrap();
        let mut rows = Vec::new();
        while s.fetch(5000, &mut rows).unwrap() > 0 {}
        rows
    };
    let all = query(None);
    let sales = query(Some("SALESPDB"));
    assert!(all
        .iter()
        .any(|r| r.src_con_name.as_deref() == Some("ORCLPDB1")));
    assert!(!sales.is_empty() && sales.len() < all.len());
    assert!(sales
        .iter()
        .all(|r| r.src_con_name.as_deref() == Some("SALESPDB")));
    assert!(sales
        .iter()
        .any(|r| r.operation_code == OperationCode::Commit));
    assert!(sales
        .iter()
        .filter(|r| r.operation_code.is_dml())
        .all(|r| r.table_name.as_deref() == Some("DOCS")));

    let mut inside = variant(
        "demo",
        &[
            two[0],
            two[1],
            two[2],
            ("version = \"19c\"", "version = \"21c\""),
            (
                "user = \"C##CDCCTL\"\ncontainer = \"CDB$ROOT\"",
                "user = \"CDCUSER\"\ncontainer = \"SALESPDB\"",
            ),
        ],
    );
    let cur = inside.current_scn().unwrap().scn;
    let from = first_scn(&inside);
    let rows = mine(&mut inside, from, cur, options()).unwrap();
    assert!(!rows.is_empty());
    assert!(rows
        .iter()
        .all(|r| r.src_con_name.as_deref() == Some("SALESPDB")));
}

#[test]
fn faults_fire_at_an_scn_as_well_as_at_a_time() {
    let text = BUILTINS
        .iter()
        .find(|b| b.name == "oracle11g")
        .unwrap()
        .text
        .to_string()
        + "\n[[faults]]\nkind = \"connection_drop\"\nat_scn = 13020000\n";
    let mut s = Sim::new(
        Scenario::parse(&text, "t").unwrap(),
        Clock::Virtual { step_ms: 1000 },
    );
    let mut dropped_at = None;
    for _ in 0..2000 {
        match s.current_scn() {
            Ok(_) => {}
            Err(e) => {
                assert_eq!(e.ora_code(), Some(3113));
                dropped_at = Some(s.model().scn);
                break;
            }
        }
    }
    let at = dropped_at.expect("the fault fires");
    assert!((13_020_000..13_021_000).contains(&at), "fired at {at}");
}

#[test]
fn a_full_recovery_area_stops_the_archiver_and_then_the_database() {
    let mut s = variant(
        "fra-nearly-full",
        &[(
            "recovery_area_used = 10307921510",
            "recovery_area_used = 10737000000",
        )],
    );
    s.advance_ms(3_600_000);
    // Reading CURRENT_SCN itself moves the SCN; the redo threads show that
    // nothing is written.
    let stuck_at = s.redo_threads().unwrap();
    s.advance_ms(600_000);
    assert_eq!(
        s.redo_threads().unwrap(),
        stuck_at,
        "no redo while the archiver is stuck"
    );
    let inst = s.instance().unwrap();
    assert_eq!(
        inst.failed_archive_dests,
        vec!["LOG_ARCHIVE_DEST_1".to_string()]
    );
    let inv = Catalog::log_inventory(&mut s).unwrap();
    assert_eq!(inv.destinations[0].status, "ERROR");
    assert!(inv.online.iter().all(|l| !l.archived));
    assert_eq!(ora(s.reconnect()), 257);
}

#[test]
fn without_supplemental_logging_updates_parse_as_partial_before_images() {
    use cdcctl::engine::finding::Finding;
    let s = sim("no-supplemental-logging");
    let rows = s.all_rows();
    let updates: Vec<_> = rows
        .iter()
        .filter(|r| r.operation_code == OperationCode::Update && !r.rollback)
        .collect();
    assert!(updates.len() > 100);
    for r in updates {
        let sql = r.sql_redo.as_deref().unwrap_or_default();
        assert!(
            !sql.contains("\"ORDER_ID\" = "),
            "key column logged without supplemental logging: {sql}"
        );
        let st = parse(sql).unwrap();
        assert!(
            st.findings()
                .iter()
                .any(|f| matches!(f, Finding::PartialBeforeImage { .. })),
            "no partial-image finding for {sql}"
        );
    }
}

#[test]
fn every_supported_release_reports_its_version_and_mining_rules() {
    for (alias, major, pdb_mining) in [
        ("11.2", 11, false),
        ("12.2", 12, false),
        ("19c", 19, true),
        ("21c", 21, true),
        ("23ai", 23, true),
    ] {
        let cdb = major >= 12;
        let text = format!(
            "[instance]\nversion = \"{alias}\"\ncdb = {cdb}\n{}\n[connection]\nuser = \"CDCUSER\"\n{}\n\
             [[tables]]\nowner = \"APP\"\nname = \"T\"\nrows = 5\nsupplemental_logging = \"all\"\nprimary_key = [\"ID\"]\n\
             columns = [{{ name = \"ID\", type = \"NUMBER\" }}, {{ name = \"V\", type = \"VARCHAR2(20)\" }}]\n",
            if cdb { "pdbs = [\"PDB1\"]" } else { "" },
            if cdb { "container = \"PDB1\"" } else { "" },
        );
        let mut s = Sim::new(
            Scenario::parse(&text, alias).unwrap(),
            Clock::Virtual { step_ms: 1000 },
        );
        let inst = s.instance().unwrap();
        assert_eq!(inst.major_version(), Some(major), "{alias}");
        for _ in 0..30 {
            s.current_scn().unwrap();
        }
        let cur = s.current_scn().unwrap().scn;
        let from = first_scn(&s);
        let result = mine(&mut s, from, cur, options());
        match (cdb, pdb_mining) {
            (true, false) => assert_eq!(ora(result), 65040, "{alias}"),
            _ => assert!(!result.unwrap().is_empty(), "{alias}"),
        }
    }
}

#[test]
fn truth_can_be_switched_off_or_drained_as_it_commits() {
    let mut s = sim("oracle11g");
    let drained = s.drain_truth_entries();
    assert!(!drained.is_empty());
    assert!(drained
        .iter()
        .all(|(start, e)| *start < e.source().commit_scn));
    s.set_truth_limit(Some(0));
    s.advance_ms(600_000);
    assert_eq!(s.truth().count(), 0, "no truth is kept when switched off");
    s.set_truth_limit(None);
    s.advance_ms(60_000);
    assert!(s.truth().count() > 0);
}

/// LogMiner resolves an undo row's full XID only when the transaction's
/// start lies inside the session's range; otherwise the sequence part
/// (the last 4 bytes of the RAW(8)) reads FFFFFFFF while USN and SLOT stay.
#[test]
fn undo_rows_of_a_transaction_started_before_the_session_carry_sequence_ffffffff() {
    let mut s = sim("demo");
    s.advance_ms(600_000);
    let rows = s.all_rows();
    let starts: HashMap<&str, Scn> = rows
        .iter()
        .filter(|r| r.operation_code == OperationCode::Start)
        .map(|r| (r.xid.as_str(), r.scn))
        .collect();
    let undo = |r: &&LogMinerRow| {
        r.operation_code == OperationCode::Rollback || r.operation_code.is_dml() && r.rollback
    };
    for full_rollback in [true, false] {
        let Some((xid, start, at)) = rows.iter().filter(undo).find_map(|r| {
            let start = *starts.get(r.xid.as_str())?;
            let kind_ok = (r.operation_code == OperationCode::Rollback) == full_rollback;
            (kind_ok && r.scn > start + 1).then(|| (r.xid.clone(), start, r.scn))
        }) else {
            panic!("demo has no undo row (full rollback: {full_rollback}) after its start");
        };
        let undo_at = |rows: &[LogMinerRow]| -> Vec<String> {
            rows.iter()
                .filter(|r| r.scn == at && undo(r))
                .map(|r| r.xid.clone())
                .collect()
        };
        let masked = format!("{}FFFFFFFF", &xid[..8]);
        let whole = mine(&mut s, start, at, options()).expect("session from the start");
        assert_eq!(undo_at(&whole), [xid], "session from the START row");
        let later = mine(&mut s, start + 1, at, options()).expect("session after the start");
        assert_eq!(
            undo_at(&later),
            [masked],
            "session started after the START row"
        );
    }
}

/// Polled every half second of database time, most transactions span
/// several LogMiner windows: their ROLLBACK and undo rows must still find
/// them, so a rolled-back transaction does not stay open and undone
/// changes (savepoints) are never emitted.
#[test]
fn issue8_rollbacks_spanning_windows_are_matched_and_undone_rows_never_emitted() {
    use cdcctl::engine::capture::StartAt;
    let make = || {
        half_second_polls(&[
            ("rollback_pct = 3.0", "rollback_pct = 25.0"),
            (
                "savepoint_pct = 5.0",
                "savepoint_pct = 40.0\nstatement_rollback_pct = 10.0",
            ),
        ])
    };
    let truth_sim = make();
    let from = first_scn(&truth_sim);
    let until = from + 6_000;
    let mut truth_sim = truth_sim;
    truth_sim.advance_to_scn(until + 1);
    let truth = changes(truth_sim.truth_between(from, until).cloned());
    assert!(truth.len() > 300, "{} changes", truth.len());
    let (got, warnings, cap) = capture_from(make(), StartAt::Scn(from), until);
    let status = cap.status().clone();
    assert!(
        status.counts.rollbacks > 10 && status.counts.partial_rollbacks > 10,
        "{:?}",
        status.counts
    );
    assert_same_changes(&changes(got.into_iter()), &truth);
    assert_eq!(warnings, []);
    // Nothing stays open that had ended by `until` in the redo.
    assert_eq!(
        status.open_transactions,
        open_in_redo_at(&cap.into_source(), until)
    );
}

/// The demo from its first SCN, without warm-up, its clock moving half a
/// second per poll: most transactions span several mining windows.
fn half_second_polls(edits: &[(&str, &str)]) -> Sim {
    let mut all = vec![("warmup_s = 600", "warmup_s = 0")];
    all.extend_from_slice(edits);
    variant("demo", &all).with_clock(Clock::Virtual { step_ms: 500 })
}

/// User transactions with redo at or below `scn` and no COMMIT or ROLLBACK
/// there (GoldenGate marker transactions, which never show one, aside).
fn open_in_redo_at(s: &Sim, scn: Scn) -> usize {
    let mut open = HashSet::new();
    for r in s.all_rows().iter().filter(|r| r.scn <= scn) {
        match r.operation_code {
            OperationCode::Commit | OperationCode::Rollback | OperationCode::ReplicationMarker => {
                open.remove(&r.xid);
            }
            _ => {
                open.insert(r.xid.clone());
            }
        }
    }
    open.len()
}

/// Started in the middle of transactions (here at the SCN reached after
/// warm-up, with several open in V$TRANSACTION), capture reads those
/// transactions from their own start: every transaction committed after
/// the start point comes out whole, none marked partial.
#[test]
fn issue8_capture_started_inside_open_transactions_emits_them_whole() {
    use cdcctl::engine::capture::StartAt;
    let mut probe = sim("long-transaction");
    let start = probe.model().scn;
    let open = Catalog::open_transactions(&mut probe).expect("V$TRANSACTION");
    assert!(
        open.iter().any(|t| t.start_scn < start && t.used_urec > 1),
        "no transaction with changes is open at SCN {start}: {open:?}"
    );
    let until = start + 3_000;
    let mut truth_sim = sim("long-transaction");
    truth_sim.advance_to_scn(until + 1);
    let truth: Vec<CapturedEvent> = truth_sim
        .drain_truth_entries()
        .into_iter()
        .map(|(_, e)| e)
        .filter(|e| (start + 1..=until).contains(&e.source().commit_scn))
        .collect();
    let truth = changes(truth.into_iter());
    let begun_before = |e: &CapturedEvent| match e {
        CapturedEvent::Change(c) => open.iter().any(|t| t.xid == c.source.xid),
        _ => false,
    };
    assert!(
        truth.iter().any(begun_before),
        "no open transaction commits by {until}"
    );
    let (got, warnings, _) = capture_from(sim("long-transaction"), StartAt::Scn(start), until);
    let got = changes(got.into_iter());
    assert!(got
        .iter()
        .all(|e| !e.to_json_line().contains("\"partial\"")));
    assert_same_changes(&got, &truth);
    assert_eq!(warnings, []);
}

/// With enable_goldengate_replication, Oracle writes marker transactions
/// (START, then a REPLICATION_MARKER row, OPERATION_CODE 27) whose COMMIT
/// LogMiner never shows: each must be dropped at its marker, not left open
/// pinning the restart SCN.
#[test]
fn issue8_goldengate_marker_transactions_are_dropped_at_their_marker() {
    use cdcctl::engine::capture::StartAt;
    let gg = [(
        "[connection]",
        "[instance.parameters]\nenable_goldengate_replication = \"TRUE\"\n\n[connection]",
    )];
    let probe = half_second_polls(&gg);
    let from = first_scn(&probe);
    let until = from + 6_000;
    let (_, warnings, cap) = capture_from(half_second_polls(&gg), StartAt::Scn(from), until);
    let status = cap.status().clone();
    let sim = cap.into_source();
    let markers = sim
        .all_rows()
        .iter()
        .filter(|r| r.scn <= until && r.operation_code == OperationCode::ReplicationMarker)
        .count();
    assert!(markers > 5, "{markers} marker transactions");
    assert_eq!(status.open_transactions, open_in_redo_at(&sim, until));
    assert_eq!(warnings, []);
}

/// A checkpoint records the incarnation. After FLASHBACK DATABASE and OPEN
/// RESETLOGS (a scenario fault), a running capture stops at its next poll
/// and a resume from the old checkpoint refuses to start, naming both
/// incarnations; a checkpoint written before the field existed still loads.
#[test]
fn issue8_new_incarnation_stops_capture_and_resume_from_an_older_checkpoint() {
    use cdcctl::engine::capture::{Capture, CaptureConfig, CaptureError, StartAt};
    use cdcctl::engine::checkpoint::Checkpoint;
    use cdcctl::engine::emit::SinkError;
    let probe = sim("oracle11g");
    let from = first_scn(&probe);
    let fault_at = probe.model().scn + 2_000;
    let text = builtin_plus(
        "oracle11g",
        &format!("[[faults]]\nkind = \"resetlogs\"\nat_scn = {fault_at}\n"),
    );
    let s = Sim::new(
        Scenario::parse(&text, "t").unwrap(),
        Clock::Virtual { step_ms: 500 },
    );
    let config = |start| CaptureConfig {
        start,
        pdb: None,
        ..CaptureConfig::default()
    };
    let mut cap = Capture::new(s, config(StartAt::Scn(from))).unwrap();
    let mut sink = |_: cdcctl::engine::event::CapturedEvent| -> Result<(), SinkError> { Ok(()) };
    let mut before_fault = None;
    let mut stopped = None;
    for _ in 0..10_000 {
        match cap.poll(&mut sink) {
            Ok(_) => {
                if cap.status().mined_scn < fault_at {
                    before_fault = Some(cap.checkpoint());
                }
            }
            Err(e) => {
                stopped = Some(e);
                break;
            }
        }
    }
    let stopped = stopped.expect("capture went on in the new incarnation");
    assert!(
        matches!(stopped, CaptureError::IncarnationChanged { .. }),
        "{stopped}"
    );
    assert!(stopped.is_untrusted_data());
    let cp = before_fault.expect("a checkpoint before the RESETLOGS");
    let stored = cp.incarnation.expect("checkpoint records the incarnation");
    assert_eq!(
        stored.resetlogs_change,
        probe.scenario().instance.resetlogs_change
    );
    let cp = Checkpoint::from_json(&cp.to_json()).unwrap();
    let mut s = cap.into_source();
    let current = RedoSource::incarnation(&mut s).unwrap();
    assert!(current.resetlogs_change > fault_at && current != stored);
    let refused = match Capture::new(s, config(StartAt::Checkpoint(cp.clone()))) {
        Err(e) => e,
        Ok(_) => panic!("resumed across a RESETLOGS"),
    };
    let msg = refused.to_string();
    assert!(
        msg.contains(&stored.to_string()) && msg.contains(&current.to_string()),
        "{msg}"
    );
    // A checkpoint without the field (older cdcctl) loads and resumes.
    let mut old: serde_json::Value = serde_json::from_str(&cp.to_json()).unwrap();
    // An older cdcctl wrote neither the incarnation nor the checksum.
    let fields = old.as_object_mut().unwrap();
    fields.remove("incarnation");
    fields.remove("checksum");
    let old = Checkpoint::from_json(&old.to_string()).unwrap();
    assert_eq!(old.incarnation, None);
    let s = Sim::new(
        Scenario::parse(&text, "t").unwrap(),
        Clock::Virtual { step_ms: 500 },
    );
    assert!(Capture::new(s, config(StartAt::Checkpoint(old))).is_ok());
}

#[test]
fn issue8_root_dictionary_shows_no_pdb_table_and_as_of_from_the_root_is_ora_00942() {
    let mut s = Sim::from_spec("demo").expect("demo");
    let orders = TableName {
        owner: "APP".into(),
        table: "ORDERS".into(),
    };
    let pattern = [cdcctl::source::TablePattern::parse("APP.ORDERS").expect("pattern")];
    let cur = s.current_scn().unwrap().scn;
    assert!(
        s.tables(&pattern).unwrap().is_empty(),
        "CDB$ROOT's ALL_TABLES shows no PDB table"
    );
    assert_eq!(ora(s.snapshot_chunk(&orders, cur, None, 10)), 942);
    assert_eq!(ora(s.set_pdb(Some("NOSUCHPDB"))), 65011);
    s.set_pdb(Some("ORCLPDB1")).unwrap();
    assert_eq!(s.tables(&pattern).unwrap().len(), 1);
    assert!(!s
        .snapshot_chunk(&orders, cur, None, 10)
        .unwrap()
        .rows
        .is_empty());
    // LogMiner still runs in the root: ADD_LOGFILE is accepted there.
    assert!(!mine(&mut s, cur - 200, cur, options()).unwrap().is_empty());
    let mut local = sim("wrong-container");
    assert_eq!(
        ora(local.set_pdb(Some("ORCLPDB1"))),
        1031,
        "a local user in a PDB cannot switch containers"
    );
}

/// The demo with two members per online group whose first members turn
/// INVALID at 60 s (before the warm-up ends).
fn demo_with_an_invalid_member() -> Sim {
    let demo = BUILTINS.iter().find(|b| b.name == "demo").unwrap();
    let text = demo
        .text
        .replacen("groups = 3\n", "groups = 3\nmembers = 2\n", 1)
        + "\n[[faults]]\nkind = \"member_invalid\"\nat_s = 60\n";
    Sim::new(
        Scenario::parse(&text, "demo-invalid-member").unwrap(),
        Clock::Virtual { step_ms: 1000 },
    )
    .with_default_pdb()
}

#[test]
fn issue8_an_invalid_online_member_is_left_out_of_the_inventory_and_cannot_be_added() {
    let mut s = demo_with_an_invalid_member();
    let inv = Catalog::log_inventory(&mut s).unwrap();
    for log in &inv.online {
        assert_eq!(log.members, 2);
        assert_eq!(log.member_files.len(), 1, "{log:?}");
        assert!(log.member_files[0].ends_with("b.log"), "{log:?}");
    }
    let current = inv.current_log(1).unwrap();
    let invalid = current.member_files[0].replace("b.log", ".log");
    let cur = s.current_scn().unwrap().scn;
    let req = SessionRequest {
        log_files: vec![invalid],
        start_scn: current.first_change,
        end_scn: cur,
        options: options(),
    };
    assert_eq!(ora(s.start_session(&req)), 313);
    let from = first_scn(&s);
    assert!(!mine(&mut s, from, cur, options()).unwrap().is_empty());
}

#[test]
fn issue31_faults_and_maintenance_due_past_any_reachable_time_never_fire() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, extra: &str| -> (Option<i32>, String) {
        let path = dir.path().join(format!("{name}.toml"));
        std::fs::write(&path, builtin_plus("demo", extra)).unwrap();
        let source = format!("sim:{}?clock=virtual", path.display());
        let output = dir.path().join(format!("{name}.jsonl"));
        let checkpoint = dir.path().join(format!("{name}.cp.json"));
        let out = cdcctl(&[
            "--source",
            &source,
            "run",
            "APP.ORDERS",
            "--snapshot",
            "never",
            "--output",
            output.to_str().unwrap(),
            "--checkpoint",
            checkpoint.to_str().unwrap(),
            "--from-scn",
            "13000000",
            "--until-scn",
            "13005000",
        ]);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let fault = |at: &str| format!("[[faults]]\nkind = \"connection_drop\"\nat_s = {at}\n");
    // A drop due inside the warm-up is there at the first call: the check
    // sees a fault that fires.
    let (code, stderr) = run("due", &fault("10"));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("03113"), "{stderr}");
    for (i, at) in [
        "18446744073709551615",
        "9223372036854775807",
        "9223372036854775",
    ]
    .into_iter()
    .enumerate()
    {
        let (code, stderr) = run(&format!("never{i}"), &fault(at));
        assert_eq!(code, Some(0), "at_s = {at}: {stderr}");
        assert!(!stderr.contains("03113"), "at_s = {at}: {stderr}");
    }
    // Scheduled DDL as far out: the truth holds no DROP TABLE.
    for at in ["18446744073709551615", "9223372036854775807"] {
        let path = dir.path().join("maintenance.toml");
        let extra = format!(
            "[[workload.maintenance]]\nat_s = {at}\ntable = \"APP.ORDERS\"\naction = \"drop_table\"\n"
        );
        std::fs::write(&path, builtin_plus("demo", &extra)).unwrap();
        let out = cdcctl(&[
            "sim",
            "truth",
            "--scenario",
            path.to_str().unwrap(),
            "--count",
            "300",
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "at_s = {at}: {stderr}");
        let truth = String::from_utf8_lossy(&out.stdout);
        assert_eq!(truth.lines().count(), 300, "at_s = {at}");
        assert!(!truth.contains("DROP TABLE"), "at_s = {at}");
    }
}

/// The first table-state row of APP.ORDERS under `forms` flags.
fn first_order_row(forms: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "--source",
        "sim:demo?clock=virtual",
        "sim",
        "truth",
        "--table-state",
        "--at-scn",
        "13000100",
    ];
    args.extend_from_slice(forms);
    let out = cdcctl(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.contains("\"ORDERS\""))
        .expect("an ORDERS row");
    let row: serde_json::Value = serde_json::from_str(line).expect("json");
    row["row"].clone()
}

#[test]
fn issue31_table_state_writes_values_in_the_forms_run_writes() {
    let plain = first_order_row(&[]);
    let hex = first_order_row(&["--binary-handling", "hex"]);
    let typed = first_order_row(&[
        "--decimal-handling",
        "double",
        "--time-precision",
        "connect",
    ]);
    let token_hex = hex["TOKEN"].as_str().expect("TOKEN as text");
    assert!(
        token_hex.bytes().all(|b| b.is_ascii_hexdigit()),
        "{token_hex}"
    );
    let bytes: Vec<u8> = (0..token_hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&token_hex[i..i + 2], 16).expect("hex"))
        .collect();
    use base64::Engine as _;
    let base64 = base64::engine::general_purpose::STANDARD.encode(bytes);
    assert_eq!(
        plain["TOKEN"],
        serde_json::Value::from(base64),
        "default base64"
    );
    assert!(typed["AMOUNT"].is_f64(), "{}", typed["AMOUNT"]);
    assert!(typed["ORDER_DATE"].is_i64(), "{}", typed["ORDER_DATE"]);
    assert!(plain["ORDER_DATE"].is_string());
}
