//! A busy workload: undo bounded by its tablespace and ORA-01555 when it is
//! overwritten, the truth recorder's limit, and a table that keeps its size.

use super::*;

/// A busy ORDERS table whose undo outgrows a 1 MiB undo tablespace well
/// inside its 900 s retention.
fn busy_orders(undo_mb: u64) -> Sim {
    let text = ORDERS.replace(
        "supplemental_logging = \"all\"\n[connection]",
        &format!(
            "supplemental_logging = \"all\"\nundo_retention_s = 900\nundo_tablespace_mb = {undo_mb}\n[connection]"
        ),
    ) + "[workload]\nrate = 2000.0\ninsert = 40\nupdate = 40\ndelete = 20\n";
    let scenario = Scenario::parse(&text, "test").expect("scenario");
    Sim::new(scenario, Clock::default()).with_default_pdb()
}

fn orders() -> TableName {
    TableName {
        owner: "APP".into(),
        table: "ORDERS".into(),
    }
}

#[test]
fn undo_held_never_exceeds_the_undo_tablespace_however_long_the_workload_runs() {
    let mut s = busy_orders(1);
    let cap = s.model().undo_capacity();
    assert_eq!(cap, 1 << 20);
    let mut records = Vec::new();
    for _ in 0..6 {
        s.advance_ms(10_000);
        let (bytes, n) = s.model().undo_usage();
        assert!(
            bytes <= cap,
            "{bytes} bytes of undo held in a {cap}-byte tablespace"
        );
        records.push(n);
    }
    // Full after the first 10 s (20,000 changes of over 64 bytes each) and
    // flat from then on: the count moves only with the size of the images.
    let (lo, hi) = (records[1..].iter().min(), records[1..].iter().max());
    let (Some(&lo), Some(&hi)) = (lo, hi) else {
        panic!("no samples");
    };
    assert!(hi - lo < hi / 10, "undo records per sample: {records:?}");
}

#[test]
fn a_read_as_of_an_scn_within_retention_whose_undo_was_overwritten_for_space_raises_ora_01555() {
    let mut small = busy_orders(1);
    let mut large = busy_orders(4096);
    let old = small.current_scn().expect("scn").scn;
    let old_large = large.current_scn().expect("scn").scn;
    assert_eq!(old, old_large, "same seed, same database");
    small.advance_ms(30_000);
    large.advance_ms(30_000);
    // 30 s is well inside the 900 s retention: only the space differs.
    let e = small
        .snapshot_chunk(&orders(), old, None, 10)
        .expect_err("undo overwritten");
    assert!(e.to_string().contains("ORA-01555"), "{e}");
    assert!(e.to_string().contains("undo_tablespace_mb = 1"), "{e}");
    assert!(large.snapshot_chunk(&orders(), old, None, 10).is_ok());
    let now = small.current_scn().expect("scn").scn;
    assert!(small.snapshot_chunk(&orders(), now, None, 10).is_ok());
}

#[test]
fn an_undo_tablespace_of_zero_mib_is_refused_with_its_key() {
    let text = ORDERS.replace("[connection]", "undo_tablespace_mb = 0\n[connection]");
    let e = Scenario::parse(&text, "test").expect_err("zero-sized undo");
    assert!(e.to_string().contains("undo_tablespace_mb"), "{e}");
}

#[test]
fn a_truth_limit_set_after_the_warm_up_drops_what_it_recorded_beyond_the_limit() {
    let mut s = busy_orders(64);
    s.advance_ms(2_000);
    let recorded = s.truth().count();
    assert!(recorded > 1_000, "{recorded} truth events");
    s.set_truth_limit(Some(0));
    assert_eq!(s.truth().count(), 0);
    assert_eq!(s.model().truth_dropped, recorded as u64);
    s.advance_ms(2_000);
    assert_eq!(s.truth().count(), 0, "none recorded from then on");
}

#[test]
fn deletes_as_likely_as_inserts_keep_a_busy_table_at_its_size() {
    let text = r#"
seed = 21
warmup_s = 1
[instance]
version = "11.2"
cdb = false
[connection]
user = "CDC"
[[tables]]
owner = "APP"
name = "ORDERS"
rows = 2000
primary_key = ["ID"]
columns = [
  { name = "ID", type = "NUMBER(10)", nullable = false },
  { name = "NAME", type = "VARCHAR2(50)" },
]
[workload]
rate = 55000.0
insert = 25
update = 50
delete = 25
txn_size = [10, 10]
concurrency = 8
"#;
    let mut s = Sim::new(Scenario::parse(text, "test").unwrap(), Clock::default());
    s.set_truth_limit(None);
    s.drain_truth();
    s.pregenerate(300_000);
    let count = |op: crate::engine::event::Op| {
        s.truth()
            .filter(|e| matches!(e, CapturedEvent::Change(c) if c.op == op))
            .count() as f64
    };
    let (inserts, deletes) = (
        count(crate::engine::event::Op::Create),
        count(crate::engine::event::Op::Delete),
    );
    assert!(deletes > 50_000.0, "{deletes} deletes");
    assert!(
        (inserts / deletes - 1.0).abs() < 0.02,
        "{inserts} inserts against {deletes} deletes"
    );
}
