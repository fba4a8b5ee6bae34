//! A table without a key is snapshotted in ROWID order (issue 33): a MOVE
//! while it is read gives its rows new ROWIDs, and a kill inside a chunk
//! leaves no key to resume after. Either way the read starts over after a
//! truncate event, and a consumer applying the events ends with the table.

use std::collections::BTreeMap;
use std::path::Path;

use crate::run::{cdcctl, lines};
use crate::snapshot::{kill_during_snapshot, output, snapshot_run_of, UNTIL};

/// A 19c instance with one table (`table`, its `[[tables]]` entry) of
/// 3,000 rows changed 40 times a second, whose 500-row chunks take 1.25 s
/// to read; `maintenance` is the workload's list.
pub(crate) fn one_table_scenario(name: &str, table: &str, maintenance: &str) -> String {
    format!(
        r#"
name = "{name}"
description = "one table snapshotted while it changes"
seed = 4242
start_time = "2025-03-28T09:00:00"
warmup_s = 60

[instance]
version = "19c"
supplemental_logging = "min"
undo_retention_s = 900
read_rows_per_s = 400

[connection]
user = "CDCCTL"

[redo]
archive_retention_s = 86400

[[tables]]
{table}
rows = 3000
weight = 1.0
supplemental_logging = "all"

[workload]
rate = 40.0
insert = 40
update = 40
delete = 20
txn_size = [1, 3]
concurrency = 3
username = "APP"
maintenance = [{maintenance}]
"#
    )
}

/// APP.EVENT_LOG has no key; `ALTER TABLE MOVE` runs three seconds into
/// its snapshot.
fn scenario() -> String {
    let table = r#"owner = "APP"
name = "EVENT_LOG"
columns = [
  { name = "EVENT_ID", type = "NUMBER(18)" },
  { name = "KIND", type = "VARCHAR2(20)" },
  { name = "AMOUNT", type = "NUMBER(12,2)" },
]"#;
    let moved = r#"{ at_s = 63, table = "APP.EVENT_LOG", action = "move_table" }"#;
    one_table_scenario("keyless-move", table, moved)
}

const SOURCE: &str = "sim:keyless.toml?clock=virtual";

fn run_args() -> Vec<&'static str> {
    snapshot_run_of(SOURCE, "500", &[])
}

/// Rows as a multiset: a row without a key is only its values.
type Rows = BTreeMap<String, u32>;

/// Applies the events as a consumer of a key-less table does: `r`/`c` add
/// a row, `d` removes one equal to its before image, `u` replaces one,
/// `t` empties the table. Panics on a change of a row the consumer does
/// not hold: the output lost or doubled something.
fn apply(events: &[serde_json::Value]) -> Rows {
    let mut rows = Rows::new();
    let text = |v: &serde_json::Value| v.to_string();
    for (i, e) in events.iter().enumerate() {
        let op = e["op"].as_str().unwrap_or_default();
        if matches!(op, "u" | "d") {
            let before = text(&e["before"]);
            let held = rows.get_mut(&before).filter(|n| **n > 0);
            let n = held.unwrap_or_else(|| panic!("event {i} changes a row not held: {e}"));
            *n -= 1;
            if *n == 0 {
                rows.remove(&before);
            }
        }
        match op {
            "r" | "c" | "u" => *rows.entry(text(&e["after"])).or_default() += 1,
            "t" => rows.clear(),
            _ => {}
        }
    }
    rows
}

/// `sim truth --table-state` of the scenario at [`UNTIL`], as a multiset.
fn truth(dir: &Path) -> Rows {
    let out = cdcctl(
        dir,
        &[
            "--source",
            SOURCE,
            "sim",
            "truth",
            "--table-state",
            "--at-scn",
            UNTIL,
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut rows = Rows::new();
    for v in lines(&String::from_utf8_lossy(&out.stdout)) {
        *rows.entry(v["row"].to_string()).or_default() += 1;
    }
    rows
}

fn assert_output_is_the_table(dir: &Path, events: &[serde_json::Value]) {
    let (got, want) = (apply(events), truth(dir));
    let count = |r: &Rows| r.values().map(|n| u64::from(*n)).sum::<u64>();
    assert!(
        count(&want) > 1000,
        "the table is nearly empty: the test covers little"
    );
    let missing: Vec<&String> = want
        .keys()
        .filter(|k| got.get(*k) != want.get(*k))
        .collect();
    let extra: Vec<&String> = got.keys().filter(|k| !want.contains_key(*k)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{} rows held, {} in the table; differing: {:?}; not in the table: {:?}",
        count(&got),
        count(&want),
        &missing[..missing.len().min(3)],
        &extra[..extra.len().min(3)]
    );
}

#[test]
fn issue33_a_table_without_a_key_moved_during_its_snapshot_is_read_again_after_a_truncate() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("keyless.toml"), scenario()).expect("scenario");
    let out = cdcctl(dir.path(), &run_args());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("its read starts over"), "{stderr}");
    let events = output(dir.path());
    let truncate = events
        .iter()
        .position(|e| e["op"] == "t")
        .expect("a truncate event");
    assert!(
        events[..truncate].iter().any(|e| e["op"] == "r"),
        "no row was read before the MOVE: the test covers nothing"
    );
    assert_output_is_the_table(dir.path(), &events);
}

#[test]
fn issue33_a_table_without_a_key_cut_inside_a_chunk_ends_as_the_table() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("keyless.toml"), scenario()).expect("scenario");
    let args = run_args();
    // Stopped by the event limit a few rows into the first chunk: the
    // output holds part of a chunk the checkpoint does not count.
    let cut: Vec<&str> = args.iter().copied().chain(["--count", "40"]).collect();
    let out = cdcctl(dir.path(), &cut);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        output(dir.path()).iter().any(|e| e["op"] == "r"),
        "no chunk was cut"
    );
    let on: Vec<&str> = args.iter().copied().chain(["--count", "2000"]).collect();
    let out = cdcctl(dir.path(), &on);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("has no key to go on after"), "{stderr}");
    let (sigkills, _, _) = kill_during_snapshot(dir.path(), &args, 6, 0x0033_4b1e_55ed);
    assert!(sigkills > 0, "no kill landed");
    let out = cdcctl(dir.path(), &args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events = output(dir.path());
    assert_output_is_the_table(dir.path(), &events);
}
