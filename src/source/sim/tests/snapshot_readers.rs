//! Snapshot readers side by side, on sessions of one simulated database:
//! together they read what one reader reads, chunk after chunk.

use std::collections::BTreeMap;

use super::*;
use crate::engine::event::CapturedEvent;
use crate::engine::snapshot::{
    KeyKind, SnapshotConfig, SnapshotKey, SnapshotMarks, SnapshotProgress, Snapshotter, Step,
};
use crate::source::sim::threaded::Threaded;

fn table(name: &str) -> TableName {
    TableName {
        owner: "APP".into(),
        table: name.into(),
    }
}

/// The demo's three tables read at one SCN by `readers` sessions, as
/// (table, key, mark, chunk) per row in the order emitted.
fn read_demo(readers: usize, chunk_rows: usize) -> Vec<(String, String, String, u32)> {
    let sim = Sim::from_spec("demo").expect("built-in scenario");
    let mut shared = Threaded::shared(sim);
    // Connected to the root: the tables are the PDB's, as capture points it.
    Catalog::set_pdb(&mut shared, Some("ORCLPDB1")).expect("the PDB");
    let names = [
        ("ORDERS", "ORDER_ID"),
        ("ORDER_HIS", "ORDER_ID"),
        ("DOCS", "DOC_ID"),
    ];
    let keys = names
        .iter()
        .map(|(t, k)| {
            let key = SnapshotKey {
                columns: vec![k.to_string()],
                kinds: vec![KeyKind::Number],
            };
            (table(t), key)
        })
        .collect();
    let mut snap = Snapshotter::new(
        SnapshotProgress::new(names.iter().map(|(t, _)| (table(t), None)).collect()),
        SnapshotConfig {
            chunk_rows,
            server_name: "cdcctl".into(),
            db: "DEMO".into(),
            binary_columns: BTreeMap::new(),
            dialect: crate::engine::port::Dialect::Oracle,
            keys,
            marks: SnapshotMarks::Positions,
        },
    );
    let mut sessions: Vec<Box<dyn RedoSource>> = (0..readers)
        .map(|_| shared.another_session().ok().flatten().expect("a session"))
        .collect();
    let scn = shared.current_scn().expect("current SCN").scn;
    let mut rows = Vec::new();
    while !snap.finished() {
        let orders = snap.orders(scn, readers);
        assert!(!orders.is_empty(), "nothing ordered before the end");
        let answers = orders
            .into_iter()
            .zip(sessions.iter_mut())
            .map(|(o, s)| o.carry_out(&mut **s))
            .collect();
        let step = snap.complete(answers, 0).expect("read");
        assert!(matches!(step, Step::Chunk { .. }), "{step:?}");
        snap.release(scn, &mut |e| {
            if let CapturedEvent::Change(c) = e {
                let key = names
                    .iter()
                    .find(|(t, _)| *t == c.source.table)
                    .and_then(|(_, k)| c.after.as_ref()?.get(k)?.as_str().map(str::to_string))
                    .unwrap_or_default();
                rows.push((
                    c.source.table.clone(),
                    key,
                    format!("{:?}", c.snapshot),
                    c.index,
                ));
            }
            Ok(())
        })
        .expect("release");
    }
    rows
}

#[test]
fn readers_side_by_side_read_what_one_reader_reads_issue33() {
    let one = read_demo(1, 300);
    // Each table's keys once each, in order: no chunk read twice or skipped.
    for t in ["ORDERS", "ORDER_HIS"] {
        let keys: Vec<u64> = one
            .iter()
            .filter(|r| r.0 == t)
            .map(|r| r.1.parse().expect("a numeric key"))
            .collect();
        assert!(keys.len() > 300, "{t}: more than a chunk");
        assert!(
            keys.windows(2).all(|w| w[0] < w[1]),
            "{t}: keys in order, once"
        );
    }
    assert_eq!(read_demo(2, 300), one, "two readers");
    assert_eq!(read_demo(3, 300), one, "three readers");
    // A table that ends inside a group, and one that fills its chunks.
    assert_eq!(read_demo(4, 250), read_demo(1, 250));
}
