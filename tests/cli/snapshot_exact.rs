//! What a consumer sees per key when `run` snapshots while it streams
//! (issue 33): one `r` row, then exactly the changes committed after the
//! SCN it was read at, nothing before it.

use std::collections::BTreeMap;

use crate::run::{cdcctl, lines};

/// (schema, table, key) of an event, `None` for DDL and changes of tables
/// LogMiner could not name.
fn key_of(e: &serde_json::Value) -> Option<(String, String, String)> {
    if e["ddl"].is_string() || e["source"]["schema"] == "UNKNOWN" {
        return None;
    }
    let image = if e["op"] == "d" {
        &e["before"]
    } else {
        &e["after"]
    };
    let first = image.as_object()?.values().next()?;
    let key = first
        .as_str()
        .map_or_else(|| first.to_string(), str::to_string);
    Some((
        e["source"]["schema"].as_str()?.to_string(),
        e["source"]["table"].as_str()?.to_string(),
        key,
    ))
}

fn scn(v: &serde_json::Value) -> u64 {
    v.as_str().and_then(|s| s.parse().ok()).unwrap_or(0)
}

/// Per key: at most one `r`, no change before it, and every change after
/// it committed above the SCN it was read at.
pub(crate) fn assert_each_key_is_one_r_then_its_later_changes(events: &[serde_json::Value]) {
    let mut read_at: BTreeMap<_, u64> = BTreeMap::new();
    let mut changed_first: BTreeMap<_, String> = BTreeMap::new();
    let mut violations = Vec::new();
    for (line, e) in events.iter().enumerate() {
        let Some(key) = key_of(e) else { continue };
        let op = e["op"].as_str().unwrap_or_default();
        if op == "r" {
            let at = scn(&e["source"]["scn"]);
            if let Some(c) = changed_first.get(&key) {
                violations.push(format!(
                    "{key:?}: {c}, then read at SCN {at} (line {})",
                    line + 1
                ));
            }
            if read_at.insert(key.clone(), at).is_some() {
                violations.push(format!("{key:?} read twice (line {})", line + 1));
            }
            continue;
        }
        let commit = scn(&e["source"]["commit_scn"]);
        match read_at.get(&key) {
            Some(&at) if commit <= at => violations.push(format!(
                "{key:?}: `{op}` committed at {commit} after its r read at {at} (line {})",
                line + 1
            )),
            Some(_) => {}
            None => {
                changed_first
                    .entry(key)
                    .or_insert_with(|| format!("`{op}` at {commit} on line {}", line + 1));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "{} keys break `one r, then later changes`: {:#?}",
        violations.len(),
        &violations[..violations.len().min(8)]
    );
    assert!(!read_at.is_empty(), "no snapshot rows");
}

/// The issue's own reproduction: the demo's orders snapshotted while the
/// workload runs, `--snapshot initial-only`.
#[test]
fn issue33_a_change_before_a_keys_chunk_is_read_is_not_streamed_before_its_r_row() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = cdcctl(
        dir.path(),
        &[
            "--source",
            "sim:demo?clock=virtual",
            "run",
            "APP.ORDERS",
            "--output",
            "o.jsonl",
            "--checkpoint",
            "cp.json",
            "--snapshot",
            "initial-only",
            "--status-every",
            "1h",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let text = std::fs::read_to_string(dir.path().join("o.jsonl")).expect("output");
    let events = lines(&text);
    assert_each_key_is_one_r_then_its_later_changes(&events);
}

/// Under fire (partition DDL, undo overwritten, a dropped table, a lost
/// connection) and streaming on after the snapshot.
#[test]
fn issue33_under_fire_each_key_is_one_r_then_its_later_changes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = cdcctl(dir.path(), &crate::snapshot::snapshot_run(&[]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let events = crate::snapshot::output(dir.path());
    assert_each_key_is_one_r_then_its_later_changes(&events);
    crate::snapshot::assert_reduced_output_is_the_table_state(dir.path(), &events);
}

/// Three readers side by side, each a session reading its own chunk of a
/// table at one SCN, killed at random moments of the snapshot: the same
/// history per key, and the table's contents in the end.
#[test]
fn issue33_readers_side_by_side_killed_under_fire_give_each_key_one_r_then_its_changes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let args = crate::snapshot::snapshot_run(&["--snapshot-readers", "3"]);
    let (_, _, events) =
        crate::snapshot::killed_then_run_to_the_end(dir.path(), &args, 0x3333_5EED_0000_0003);
    assert_each_key_is_one_r_then_its_later_changes(&events);
    crate::snapshot::assert_reduced_output_is_the_table_state(dir.path(), &events);
}

/// An `r` row's value of a column and a streamed value of it, as written.
fn forms_of(events: &[serde_json::Value], table: &str, column: &str) -> (Vec<String>, Vec<String>) {
    let mut read = Vec::new();
    let mut streamed = Vec::new();
    for e in events.iter().filter(|e| e["source"]["table"] == table) {
        let v = &e["after"][column];
        if v.is_null() {
            continue;
        }
        let shape: String = v
            .to_string()
            .chars()
            .map(|c| if c.is_ascii_digit() { '9' } else { c })
            .collect();
        match e["op"].as_str() {
            Some("r") => read.push(shape),
            Some("c" | "u") => streamed.push(shape),
            _ => {}
        }
    }
    read.sort();
    read.dedup();
    streamed.sort();
    streamed.dedup();
    (read, streamed)
}

/// The snapshot's SQL reads DATE and TIMESTAMP through `TO_CHAR`; an `r`
/// row carries each value in the form the stream gives it, under every
/// value-form option.
#[test]
fn issue33_snapshot_rows_write_dates_and_timestamps_as_the_stream_does() {
    for forms in [&[][..], &["--time-precision", "connect"][..]] {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut args = crate::snapshot::snapshot_run(&[]);
        args.extend_from_slice(forms);
        let out = cdcctl(dir.path(), &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        let events = crate::snapshot::output(dir.path());
        for column in ["ORDER_DATE", "CREATE_TIME"] {
            let (read, streamed) = forms_of(&events, "ORDER_HIS", column);
            assert!(!read.is_empty() && !streamed.is_empty(), "{column}");
            assert_eq!(
                read, streamed,
                "{column} under {forms:?}: r rows vs streamed rows"
            );
        }
    }
}
