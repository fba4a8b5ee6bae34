//! Row images a consumer applies as they are (issue 32): `run --lob capture`
//! on the LOB scenarios, applied the way an upsert consumer (Flink's
//! `debezium-json`, a JDBC sink) applies them — the after image replaces the
//! row, a delete removes it — and the unavailable marker keeps the value
//! the row had, as README tells consumers to do. The final state must be
//! the simulator's table contents: a column an event leaves out, or a NULL
//! written where the value was not known, reads as a wrong row. A value the
//! last event gave as the marker is not compared: the consumer was told it
//! is not known (an OSON document LogMiner printed as bytes changes under
//! the marker).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::run::{cdcctl, lines};

const FROM: &str = "13000000";
const UNTIL: &str = "13030000";
const MARKER: &str = "__debezium_unavailable_value";
/// The marker as base64 bytes, in a BLOB column.
const MARKER_BYTES: &str = "X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ==";

/// A column's value, and whether the last event gave it as the marker.
type Cell = (serde_json::Value, bool);
/// (table, key as JSON text) → column → cell.
type State = BTreeMap<(String, String), BTreeMap<String, Cell>>;

fn is_marker(v: &serde_json::Value) -> bool {
    v == MARKER || v == MARKER_BYTES
}

/// `sim truth --table-state --at-scn` of a scenario, with each table's key
/// columns.
fn table_state(dir: &Path, scenario: &str, at: &str) -> (State, BTreeMap<String, Vec<String>>) {
    let out = cdcctl(
        dir,
        &[
            "sim",
            "truth",
            "--scenario",
            scenario,
            "--table-state",
            "--at-scn",
            at,
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut state = State::new();
    let mut keys = BTreeMap::new();
    for v in lines(&String::from_utf8_lossy(&out.stdout)) {
        if v["removed_at_scn"].is_string() {
            continue;
        }
        let table = v["table"].as_str().unwrap_or_default().to_string();
        let key = v["key"].as_object().expect("a key object");
        keys.insert(table.clone(), key.keys().cloned().collect());
        let row = v["row"].as_object().expect("a row object");
        let row = row.iter().map(|(c, x)| (c.clone(), (x.clone(), false)));
        state.insert((table, v["key"].to_string()), row.collect());
    }
    (state, keys)
}

/// The key of `image` as the table state writes it.
fn key_of(image: &serde_json::Value, columns: &[String]) -> String {
    let key: serde_json::Map<String, serde_json::Value> = columns
        .iter()
        .map(|c| (c.clone(), image[c].clone()))
        .collect();
    serde_json::Value::Object(key).to_string()
}

/// Applies the events onto `state` as an upsert consumer that keeps a
/// column's value when the event gives the marker.
fn apply(state: &mut State, keys: &BTreeMap<String, Vec<String>>, events: &[serde_json::Value]) {
    for e in events {
        let table = e["source"]["table"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let Some(columns) = keys.get(&table) else {
            continue;
        };
        let op = e["op"].as_str().unwrap_or_default();
        let image = if op == "d" { &e["before"] } else { &e["after"] };
        let key = (table, key_of(image, columns));
        if op == "d" {
            state.remove(&key);
            continue;
        }
        let old = state.remove(&key).unwrap_or_default();
        let mut row = BTreeMap::new();
        for (column, value) in image.as_object().expect("an after image") {
            let cell = match old.get(column) {
                Some((was, _)) if is_marker(value) => (was.clone(), true),
                _ => (value.clone(), is_marker(value)),
            };
            row.insert(column.clone(), cell);
        }
        state.insert(key, row);
    }
}

/// Timestamps compared as instants: the table state writes nine fraction
/// digits where an event may write the column's own.
/// A JSON document (a native JSON column) compares as its value: members
/// come in the order the database stores them, not as written.
fn normalized(v: &serde_json::Value) -> serde_json::Value {
    let Some(text) = v.as_str() else {
        return v.clone();
    };
    if text.starts_with(['{', '[']) {
        if let Ok(doc) = serde_json::from_str::<serde_json::Value>(text) {
            return doc;
        }
    }
    let bytes = text.as_bytes();
    let timestamp = bytes.len() >= 20 && bytes[10] == b'T' && bytes[19] == b'.';
    if !timestamp {
        return v.clone();
    }
    let (head, zone) = text.strip_suffix('Z').map_or((text, ""), |h| (h, "Z"));
    let head = head.trim_end_matches('0').trim_end_matches('.');
    serde_json::Value::String(format!("{head}{zone}"))
}

/// Per table and column, the rows whose final value is wrong; a value the
/// last event gave as the marker is not counted.
fn wrong_rows(got: &State, want: &State) -> BTreeMap<String, usize> {
    let mut wrong = BTreeMap::new();
    let keys: BTreeSet<_> = got.keys().chain(want.keys()).collect();
    for key in keys {
        let (g, w) = match (got.get(key), want.get(key)) {
            (Some(g), Some(w)) => (g, w),
            _ => {
                *wrong.entry(format!("{} (row)", key.0)).or_default() += 1;
                continue;
            }
        };
        let columns: BTreeSet<_> = w.keys().chain(g.keys()).collect();
        for column in columns {
            let null = (serde_json::Value::Null, false);
            let (value, flagged) = g.get(column).unwrap_or(&null);
            if *flagged {
                continue;
            }
            let (expected, _) = w.get(column).unwrap_or(&null);
            if normalized(value) != normalized(expected) {
                *wrong.entry(format!("{}.{column}", key.0)).or_default() += 1;
            }
        }
    }
    wrong
}

/// `run --lob capture` of `source` with `extra` into `dir`: its events.
fn lob_capture_run(dir: &Path, source: &str, extra: &[&str]) -> Vec<serde_json::Value> {
    let mut args = vec!["--source", source, "run", "--lob", "capture"];
    args.extend_from_slice(extra);
    args.extend([
        "--output",
        "out.jsonl",
        "--checkpoint",
        "cp.json",
        "--schema-changes",
        "skip",
        "--status-every",
        "1h",
    ]);
    let run = cdcctl(dir, &args);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let out = std::fs::read_to_string(dir.join("out.jsonl")).expect("output");
    lines(&out)
}

/// `run --lob capture` of a scenario over (FROM, UNTIL], applied onto the
/// table contents at FROM: the wrong rows against the contents at UNTIL.
fn applied_run(scenario: &str) -> BTreeMap<String, usize> {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = format!("sim:{scenario}?clock=virtual");
    let events = lob_capture_run(
        dir.path(),
        &source,
        &["--from-scn", FROM, "--until-scn", UNTIL],
    );
    assert!(events.len() > 1000, "{scenario}: {} events", events.len());
    let (mut state, keys) = table_state(dir.path(), scenario, FROM);
    let (want, _) = table_state(dir.path(), scenario, UNTIL);
    apply(&mut state, &keys, &events);
    wrong_rows(&state, &want)
}

#[test]
fn issue32_lob_capture_images_applied_by_a_consumer_end_in_the_lobs_table_contents() {
    let wrong = applied_run("lobs");
    assert!(wrong.is_empty(), "wrong rows per column: {wrong:?}");
}

#[test]
fn issue32_lob_capture_images_applied_by_a_consumer_end_in_the_redo_forms_table_contents() {
    let wrong = applied_run("redo-forms");
    assert!(wrong.is_empty(), "wrong rows per column: {wrong:?}");
}

/// `run --lob capture` of `demo` from its initial snapshot, applied from
/// nothing: the wrong DOCS cells, and the DOCS cells left as the marker.
fn docs_from_the_snapshot(lob_memory_mb: &str) -> (BTreeMap<String, usize>, usize) {
    const AT: &str = "13100000";
    let dir = tempfile::tempdir().expect("tempdir");
    let events = lob_capture_run(
        dir.path(),
        "sim:demo?clock=virtual",
        &[
            "APP.DOCS",
            "--lob-memory-mb",
            lob_memory_mb,
            "--until-scn",
            AT,
        ],
    );
    let (mut want, keys) = table_state(dir.path(), "demo", AT);
    want.retain(|k, _| k.0 == "DOCS");
    let mut got = State::new();
    apply(&mut got, &keys, &events);
    let marked = got
        .values()
        .flat_map(|row| row.values())
        .filter(|(_, m)| *m)
        .count();
    (wrong_rows(&got, &want), marked)
}

#[test]
fn issue32_an_update_leaving_a_lob_alone_carries_the_value_the_run_last_saw() {
    let (wrong, marked) = docs_from_the_snapshot("64");
    assert!(wrong.is_empty(), "wrong rows per column: {wrong:?}");
    assert_eq!(
        marked, 0,
        "every LOB was read by the snapshot or written since"
    );
    let (_, without) = docs_from_the_snapshot("0");
    assert!(
        without > 100,
        "without the memory {without} cells stay the marker"
    );
}
